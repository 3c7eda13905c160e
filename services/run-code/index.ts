/**
 * `sandbench serve run-code` as a service: a run of its own (run id, run lock, cleanup registry,
 * scratch directory under the fixture root, the cached task image), the backend's executor probed and
 * prepared on it, and the /run_code server. `clean` finds what a killed server left by its run id,
 * exactly as for `sandbench run`. The run-code kind starts the server alone (startRunCodeServer) on
 * its own run.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Executor, RunContext } from '../../harness/contracts/executor.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { newRunId } from '../../harness/run/bundle-dir.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { runCodeImageRequest } from './image.ts';
import { languageSupport, runnableLanguages } from './languages.ts';
import { startRunCodeServer, type RunCodeServer, type RunCodeServerOptions } from './server.ts';

export { startRunCodeServer, REQUEST_ID_HEADER, type RunCodeServer } from './server.ts';
export { languageSupport, runnableLanguages, VERL_LANGUAGES, type VerlLanguage } from './languages.ts';
export { RunCodeJournalEntrySchema, RUN_CODE_OUTCOMES, type RunCodeJournalEntry } from './journal.ts';
export type { RunCodeRequest, RunCodeResponse } from './wire.ts';
export { RUN_CODE_COMPILER_PACKAGES, runCodeImageRequest } from './image.ts';

export class RunCodeServiceError extends Error {}

export interface RunCodeServiceOptions {
  executor: Executor;
  slots: number;
  port: number;
  journalPath: string;
  /** Run from the task image plus RUN_CODE_COMPILER_PACKAGES (cpp runs), not the default image. */
  compilers?: boolean;
  log: (message: string) => void;
  onSandbox?: RunCodeServerOptions['onSandbox'];
}

export interface RunCodeService {
  readonly server: RunCodeServer;
  readonly runId: string;
  readonly languages: string[];
  readonly backendVersion: string | null;
  /** Close the server (killing sandboxes in flight), tear the executor down, release the run. Returns what failed to release. */
  close(): Promise<string[]>;
}

export async function openRunCodeService(options: RunCodeServiceOptions): Promise<RunCodeService> {
  const { executor, log } = options;
  const probe = await executor.probe();
  if (!probe.available) throw new RunCodeServiceError(`backend ${executor.backend} is unavailable: ${probe.reason ?? 'unknown reason'}${probe.fix ? ` (fix: ${probe.fix})` : ''}`);
  const runId = newRunId(`serve-run-code-${executor.backend}`);
  const image = await ensureTaskImage(stateDir(), runCodeImageRequest({ compilers: options.compilers ?? false }), log);
  const releaseLock = acquireRunLock(stateDir(), runId);
  const cleanup = new CleanupRegistry(runId);
  const root = runScratchDir(stateDir(), runId);
  const run: RunContext = { runId, image, stateDir: stateDir(), cleanup, log, options: { dockerHost: process.env.DOCKER_HOST } };
  const release = async (): Promise<string[]> => {
    const failures: string[] = [];
    await executor.teardown().catch((error: unknown) => failures.push(`teardown: ${error instanceof Error ? error.message : String(error)}`));
    for (const failure of await cleanup.releaseAll()) failures.push(`${failure.handle.kind} ${failure.handle.name}: ${failure.error}`);
    rmSync(root, { recursive: true, force: true });
    releaseLock();
    return failures;
  };
  try {
    mkdirSync(join(root, 'requests'), { recursive: true });
    await executor.prepare(run);
    const languages = languageSupport(image.rootfsDir);
    const server = await startRunCodeServer({ executor, run, languages, slots: options.slots, port: options.port, scratchDir: join(root, 'requests'), journalPath: options.journalPath, onSandbox: options.onSandbox });
    return {
      server,
      runId,
      languages: runnableLanguages(languages),
      backendVersion: probe.version,
      async close() {
        await server.close();
        return release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
