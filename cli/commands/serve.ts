/**
 * `sandbench serve run-code`: verl's SandboxFusion endpoint on any sandbench backend (built in, or
 * declared in a spec's `backends:` with --spec). Runs until SIGINT/SIGTERM, then kills the sandboxes
 * in flight, tears the backend down, closes the journal and prints the request counts.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../harness/errors.ts';
import { nonNegativeInt, positiveInt } from '../parse-options.ts';

interface RunCodeFlags {
  backend: string;
  spec?: string;
  slots: number;
  port: number;
  journal: string;
  compilers?: boolean;
}

const DESCRIPTION = 'Serve SandboxFusion-compatible endpoints on 127.0.0.1 backed by sandbench sandboxes';

/** `backend` or `backend:variant` → the executor, from the built-in catalog or the spec's. */
async function executorFor(flags: RunCodeFlags) {
  const { runWiring } = await import('../wiring.ts');
  const wiring = await runWiring();
  const [backend, variant = null] = flags.backend.split(':', 2) as [string, string?];
  let factory = wiring.createExecutor;
  if (flags.spec) {
    const { resolveGivenSpec } = await import('../../harness/spec/given-spec.ts');
    factory = await wiring.executorsFor(resolveGivenSpec(flags.spec, {}, wiring.specKinds).spec);
  }
  const executor = factory(backend, variant);
  if (!executor) throw new UserError(`--backend ${flags.backend}: no such backend${flags.spec ? ` in ${flags.spec}'s catalog` : ''} (sandbench doctor lists them; a spec's backends: section adds more with --spec)`);
  return executor;
}

export function registerServe(program: Command): void {
  const serve = program.command('serve').description(DESCRIPTION);
  serve
    .command('run-code')
    .description("SandboxFusion's POST /run_code (the request and response of verl 0.9.1's client): each request in a fresh sandbox of --backend, journalled; point verl at it with reward.sandbox_fusion.url=http://127.0.0.1:PORT/run_code")
    .requiredOption('--backend <name>', 'backend (or backend:variant) every request runs on')
    .option('--spec <spec>', "take the backend from this spec's catalog (built in + its backends: section)")
    .option('--slots <n>', 'sandboxes at once; further requests wait in FIFO order (match verl reward.sandbox_fusion.max_concurrent)', positiveInt('--slots'), 8)
    .option('--port <n>', 'TCP port on 127.0.0.1 (0 = any free port)', nonNegativeInt('--port'), 8080)
    .option('--journal <file>', 'request journal (JSONL, one fsynced line per request)', 'run-code-journal.jsonl')
    .option('--compilers', 'run from the task image plus g++ (services/run-code/image.ts), so cpp requests compile and run')
    .action(async (flags: RunCodeFlags) => {
      const executor = await executorFor(flags);
      const { openRunCodeService, RunCodeServiceError } = await import('../../services/run-code/index.ts');
      const log = (line: string) => process.stderr.write(`sandbench: ${line}\n`);
      let service;
      try {
        service = await openRunCodeService({ executor, slots: flags.slots, port: flags.port, journalPath: resolve(flags.journal), compilers: flags.compilers ?? false, log });
      } catch (error) {
        if (error instanceof RunCodeServiceError) throw new UserError(error.message);
        throw error;
      }
      const ready = { url: service.server.url, backend: flags.backend, backend_version: service.backendVersion, slots: flags.slots, languages: service.languages, journal: resolve(flags.journal), run_id: service.runId };
      process.stdout.write(`RUN_CODE_SERVICE_READY ${JSON.stringify(ready)}\n`);
      await new Promise<void>((resolveStop) => {
        process.once('SIGINT', resolveStop);
        process.once('SIGTERM', resolveStop);
      });
      log('stopping: killing sandboxes in flight, tearing the backend down');
      for (const failure of await service.close()) log(`cleanup: ${failure}`);
      log(`run-code service stopped: ${JSON.stringify(service.server.stats())}`);
    });
}
