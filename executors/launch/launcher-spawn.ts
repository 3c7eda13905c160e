/**
 * The launcher timing path: one launch request to `sandbench-launch`; every stamp (pre-vfork,
 * each output chunk, exit) comes from the launcher's CLOCK_MONOTONIC, the clock behind
 * process.hrtime, so they compare directly with the harness's own stamps.
 */
import { constants } from 'node:os';
import type { ExitInfo, RunningTrial, TimingPath } from '../../harness/contracts/executor.ts';
import { budgetProcsFiles } from './launch-controls.ts';
import type { LauncherClient } from './launcher-client.ts';
import { LineLog } from './line-splitter.ts';
import { finishExit, KILL_GRACE_MS, launchWarmups, type SpawnOptions } from './spawn-options.ts';

const signalNames = new Map<number, string>(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/** A RunningTrial plus `started`, which settles once the launcher reported the spawn (or its failure). */
export interface LauncherTrial extends RunningTrial {
  started: Promise<void>;
}

export function spawnWithLauncher(client: LauncherClient, options: SpawnOptions, requestedTiming: TimingPath): LauncherTrial {
  if (options.argv.length === 0) throw new Error('spawnTrial: empty argv');
  const log = new LineLog();
  const env = options.clearEnv ? options.env ?? {} : { ...(process.env as Record<string, string>), ...options.env };
  const cgroupProcs = options.controls?.budget ? budgetProcsFiles(options.controls.budget) : [];
  // Until the launcher reports its pre-vfork stamp this holds the harness's request stamp; lines
  // and the exit always arrive after that report, so anything measured from them sees the final value.
  let tSpawnNs = process.hrtime.bigint();
  let pid: number | null = null;
  // Completed by the spawn report with how many warm-up launches preceded the stamp.
  let timing: TimingPath = requestedTiming;
  let timedOut = false;
  let finished = false;
  let resolveExit!: (info: ExitInfo) => void;
  const exitPromise = new Promise<ExitInfo>((resolve) => (resolveExit = resolve));
  let resolveStarted!: () => void;
  const started = new Promise<void>((resolve) => (resolveStarted = resolve));

  const finish = (info: ExitInfo) => {
    if (finished) return;
    finished = true;
    log.flush(info.tExitNs);
    resolveStarted();
    resolveExit(finishExit(options, info, log.lines));
  };

  const launched = client.spawn(
    {
      argv: options.argv,
      env: Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined)),
      cwd: options.cwd,
      stdin: options.stdin,
      cpus: options.controls?.cpus ?? null,
      cgroupProcs,
      timeoutMs: options.timeoutMs,
      graceMs: KILL_GRACE_MS,
      warmups: launchWarmups(),
      primes: options.primeRuns ?? 0,
    },
    {
      onEvent(event) {
        switch (event.type) {
          case 'spawned':
            tSpawnNs = event.tNs;
            pid = event.pid;
            timing = { ...requestedTiming, warmup_launches: event.warmups, ...(options.primeRuns ? { prime_runs: event.primes } : {}) };
            resolveStarted();
            break;
          case 'output':
            (event.stream === 'stdout' ? log.stdout : log.stderr).push(event.data, event.tNs);
            break;
          case 'timeout':
            timedOut = true;
            void kill('timeout');
            break;
          case 'exit':
            finish({ exitCode: event.exitCode, signal: event.signal === null ? null : signalNames.get(event.signal) ?? String(event.signal), timedOut, tExitNs: event.tNs });
            break;
          case 'spawn-failed': {
            tSpawnNs = event.tNs;
            log.stderr.push(`sandbench-launch: ${event.message}\n`, event.tNs);
            // A missing task binary is the task's failure (as with Node's spawn); a control that could
            // not be applied before exec is the harness's.
            const infraFailure = event.stage === 'exec' ? undefined : { category: 'setup_failed' as const, reason: `launcher could not start the trial (${event.stage}): ${event.message}` };
            finish({ exitCode: null, signal: null, timedOut: false, tExitNs: event.tNs, ...(infraFailure ? { infraFailure } : {}) });
            break;
          }
        }
      },
      onLauncherDeath(reason, sent) {
        finish({
          exitCode: null,
          signal: null,
          timedOut,
          tExitNs: process.hrtime.bigint(),
          infraFailure: sent
            ? { category: 'recording_failed', reason: `sandbench-launch died (${reason}); the trial's process group was killed and its timing is lost` }
            : { category: 'recording_failed', reason: `not launched: sandbench-launch ${reason} (one run never switches timing paths)` },
        });
      },
    },
  );

  let killing: Promise<void> | null = null;
  const kill = (_reason: string): Promise<void> => {
    if (killing) return killing;
    killing = (async () => {
      await started;
      launched.signal('SIGTERM');
      const grace = setTimeout(() => launched.signal('SIGKILL'), KILL_GRACE_MS);
      try {
        if (options.onKill) await options.onKill();
        await exitPromise;
      } finally {
        clearTimeout(grace);
      }
    })();
    return killing;
  };

  return {
    get tSpawnNs() {
      return tSpawnNs;
    },
    lines: log.lines,
    onLine: (listener) => log.onLine(listener),
    writeStdin: (text) => launched.write(text),
    closeStdin: () => launched.closeStdin(),
    exit: exitPromise,
    kill,
    rootPids: () => (pid === null ? [] : [pid]),
    get timing() {
      return timing;
    },
    started,
  };
}
