/**
 * Spawns one launched tree in its own process group and turns its output into timestamped lines.
 * Shared by every adapter that launches a process (host, staged, podman/docker clients, qemu).
 */
import { execa, type ResultPromise } from 'execa';
import type { ExitInfo, OutputLine, RunningTrial } from '../harness/contracts/executor.ts';

export interface SpawnOptions {
  argv: string[];
  env?: Record<string, string>;
  /** Replace the environment entirely instead of extending process.env. */
  clearEnv?: boolean;
  cwd?: string;
  stdin: 'pipe' | 'none';
  timeoutMs: number;
  /** Parse an exit code reported on the console (VMs), overriding the process exit code. */
  exitCodeFromLines?: (lines: readonly OutputLine[]) => number | null;
  /** Extra teardown when killing (e.g. `podman rm -f`), run after the process group is signalled. */
  onKill?: () => Promise<void>;
  /** Inspect the finished process and report an infrastructure failure, if any. */
  classifyExit?: (info: ExitInfo, lines: readonly OutputLine[]) => ExitInfo['infraFailure'];
}

/** Grace between SIGTERM and SIGKILL when tearing a tree down. */
const KILL_GRACE_MS = 2000;

class LineSplitter {
  private pending = '';
  constructor(
    private readonly stream: OutputLine['stream'],
    private readonly emit: (line: OutputLine) => void,
  ) {}
  push(chunk: Buffer | string, tNs: bigint): void {
    const text = this.pending + chunk.toString();
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    for (const part of parts) this.emit({ stream: this.stream, text: part.replace(/\r$/, ''), tNs });
  }
  flush(tNs: bigint): void {
    if (this.pending.length > 0) this.emit({ stream: this.stream, text: this.pending.replace(/\r$/, ''), tNs });
    this.pending = '';
  }
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // group already gone
  }
}

export function spawnTrial(options: SpawnOptions): RunningTrial {
  const lines: OutputLine[] = [];
  const listeners: ((line: OutputLine) => void)[] = [];
  const emit = (line: OutputLine) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
  };
  const [file, ...args] = options.argv;
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
  const stdoutSplitter = new LineSplitter('stdout', emit);
  const stderrSplitter = new LineSplitter('stderr', emit);
  child.stdout?.on('data', (chunk: Buffer) => stdoutSplitter.push(chunk, process.hrtime.bigint()));
  child.stderr?.on('data', (chunk: Buffer) => stderrSplitter.push(chunk, process.hrtime.bigint()));
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
    stdoutSplitter.flush(tExitNs);
    stderrSplitter.flush(tExitNs);
    // Anything still alive in the group (a daemonized grandchild) dies with the trial.
    killGroup(child.pid, 'SIGKILL');
    const processCode = typeof result.exitCode === 'number' ? result.exitCode : null;
    const exitCode = options.exitCodeFromLines ? options.exitCodeFromLines(lines) : processCode;
    const info: ExitInfo = { exitCode, signal: result.signal ?? null, timedOut, tExitNs };
    const infraFailure = options.classifyExit?.(info, lines);
    return infraFailure ? { ...info, infraFailure } : info;
  })();

  return {
    tSpawnNs,
    lines,
    onLine(listener) {
      for (const line of lines) listener(line);
      listeners.push(listener);
    },
    writeStdin(text) {
      child.stdin?.write(text);
    },
    closeStdin() {
      child.stdin?.end();
    },
    exit,
    kill,
    rootPids: () => (child.pid === undefined ? [] : [child.pid]),
  };
}
