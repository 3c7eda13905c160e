/**
 * `sandbench model serve`: the deterministic scripted model service on its own (also for people
 * testing agent CLIs offline). Runs until SIGINT/SIGTERM, then closes the journal and prints stats.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../harness/errors.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { loadModelScript, ModelScriptError, ModelServiceConfigError, startModelService, MODEL_SOCKET_NAME } from '../../services/model/index.ts';
import { nonNegativeInt, positiveInt } from '../parse-options.ts';

const SHIPPED_SCRIPTS = join(PROJECT_ROOT, 'data', 'model-scripts');

interface ServeOptions {
  script: string;
  socket?: string;
  port?: number;
  slots: number;
  baseMs: number;
  perTokenMs: number;
  journal?: string;
}

function milliseconds(option: string) {
  return (value: string): number => {
    if (!/^\d+(\.\d+)?$/.test(value)) throw new UserError(`${option} ${value}: expected milliseconds ≥ 0, e.g. 50 or 0.5`);
    return Number(value);
  };
}

/** A file path, or the name of a shipped script in data/model-scripts/ (e.g. `marker`). */
function resolveScript(value: string): string {
  if (existsSync(value)) return value;
  for (const ext of ['.yaml', '.yml', '.json']) {
    const shipped = join(SHIPPED_SCRIPTS, `${value}${ext}`);
    if (!value.includes('/') && existsSync(shipped)) return shipped;
  }
  throw new UserError(`--script ${value}: no such file, and no shipped script of that name in data/model-scripts/`);
}

export function registerModel(program: Command): void {
  const model = program.command('model').description('The deterministic scripted model service agent CLIs talk to');
  model
    .command('serve')
    .description('Serve a model script over OpenAI Responses, Chat Completions and Anthropic Messages on a Unix socket (and optionally 127.0.0.1:PORT), journaling every request')
    .requiredOption('--script <file>', 'model script (.yaml/.json), or a shipped script name such as "marker"')
    .option('--socket <path>', `Unix socket to listen on (mode 0777; default ./${MODEL_SOCKET_NAME})`)
    .option('--port <n>', 'also listen on 127.0.0.1:N (0 = any free port)', nonNegativeInt('--port'))
    .option('--slots <n>', 'concurrent requests in service; the rest wait in FIFO order', positiveInt('--slots'), 4)
    .option('--base-ms <ms>', 'service time per reply before its first token', milliseconds('--base-ms'), 0)
    .option('--per-token-ms <ms>', 'service time per output token (replies stream at this rate)', milliseconds('--per-token-ms'), 0)
    .option('--journal <file>', 'model-traffic journal (JSONL; default model-journal.jsonl beside the socket)')
    .action(async (options: ServeOptions) => {
      const scriptPath = resolveScript(options.script);
      let service;
      try {
        service = await startModelService({
          script: loadModelScript(scriptPath),
          socketPath: resolve(options.socket ?? MODEL_SOCKET_NAME),
          port: options.port,
          slots: options.slots,
          baseMs: options.baseMs,
          perTokenMs: options.perTokenMs,
          journalPath: options.journal === undefined ? undefined : resolve(options.journal),
          log: (line) => process.stderr.write(`sandbench: ${line}\n`),
        });
      } catch (error) {
        if (error instanceof ModelScriptError || error instanceof ModelServiceConfigError) throw new UserError(error.message);
        throw error;
      }
      const ready = { script: scriptPath, script_id: service.script.id, socket: service.socketPath, port: service.port, journal: service.journalPath, slots: options.slots, base_ms: options.baseMs, per_token_ms: options.perTokenMs };
      process.stdout.write(`MODEL_SERVICE_READY ${JSON.stringify(ready)}\n`);
      await new Promise<void>((resolveStop) => {
        process.once('SIGINT', resolveStop);
        process.once('SIGTERM', resolveStop);
      });
      await service.close();
      process.stderr.write(`sandbench: model service stopped: ${JSON.stringify(service.stats())}\n`);
    });
}
