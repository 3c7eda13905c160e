/**
 * The fallback timing path: Node (execa) spawns the tree in its own process group and stamps output
 * when the event loop reads it. Used when no launcher can be built or started, or when forced with
 * SANDBENCH_TIMING_PATH=node. Controls cost extra execs here (budget shell, taskset).
 */
import { execa, type ResultPromise } from 'execa';
import type { ExitInfo, RunningTrial, TimingPath } from '../../harness/contracts/executor.ts';
import { nodeControlsPrefix } from './launch-controls.ts';
import { LineLog } from './line-splitter.ts';
import { finishExit, KILL_GRACE_MS, type SpawnOptions } from './spawn-options.ts';

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // group already gone
  }
}

export function spawnWithNode(options: SpawnOptions, timing: TimingPath): RunningTrial {
  const log = new LineLog();
  const [file, ...args] = [...nodeControlsPrefix(options.controls), ...options.argv];
  if (!file) throw new Error('spawnTrial: empty argv');
  const env = options.clearEnv ? options.env ?? {} : { ...process.env, ...options.env };

  const tSpawnNs = process.hrtime.bigint();
  const child: ResultPromise = execa(file, args, {
    cwd: options.cwd,
    env,
    extendEnv: !options.clearEnv,
    stdin: options.stdin === 'pipe' ? 'pipe' : 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    detached: true,
    cleanup: true,
    encoding: 'buffer',
  });
  child.stdout?.on('data', (chunk: Buffer) => log.stdout.push(chunk, process.hrtime.bigint()));
  child.stderr?.on('data', (chunk: Buffer) => log.stderr.push(chunk, process.hrtime.bigint()));
  child.stdin?.on('error', () => undefined);

  let timedOut = false;
  let killing: Promise<void> | null = null;
  const kill = (_reason: string): Promise<void> => {
    if (killing) return killing;
    killing = (async () => {
      killGroup(child.pid, 'SIGTERM');
      const grace = setTimeout(() => killGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      try {
        if (options.onKill) await options.onKill();
        await child;
      } finally {
        clearTimeout(grace);
        killGroup(child.pid, 'SIGKILL');
      }
    })();
    return killing;
  };
  const timer = setTimeout(() => {
    timedOut = true;
    void kill('timeout');
  }, options.timeoutMs);

  const exit = (async (): Promise<ExitInfo> => {
    const result = await child;
    clearTimeout(timer);
    const tExitNs = process.hrtime.bigint();
    log.flush(tExitNs);
    // Anything still alive in the group (a daemonized grandchild) dies with the trial.
    killGroup(child.pid, 'SIGKILL');
    const exitCode = typeof result.exitCode === 'number' ? result.exitCode : null;
    return finishExit(options, { exitCode, signal: result.signal ?? null, timedOut, tExitNs }, log.lines);
  })();

  return {
    tSpawnNs,
    lines: log.lines,
    onLine: (listener) => log.onLine(listener),
    writeStdin(text) {
      child.stdin?.write(text);
    },
    closeStdin() {
      child.stdin?.end();
    },
    exit,
    kill,
    rootPids: () => (child.pid === undefined ? [] : [child.pid]),
    // The Node path has no prime runs: a record that asked for them says none ran.
    timing: options.primeRuns ? { ...timing, prime_runs: 0 } : timing,
  };
}
