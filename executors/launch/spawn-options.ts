import type { ExitInfo, OutputLine } from '../../harness/contracts/executor.ts';
import type { LaunchControls } from './launch-controls.ts';

export interface SpawnOptions {
  argv: string[];
  env?: Record<string, string>;
  /** Replace the environment entirely instead of extending process.env. */
  clearEnv?: boolean;
  cwd?: string;
  stdin: 'pipe' | 'none';
  timeoutMs: number;
  /** CPU affinity and budget cgroups, applied before exec (launcher) or by an argv prefix (Node path). */
  controls?: LaunchControls;
  /** Untimed runs of this command right before the timed one (launcher path only; the Node path runs none and says so). */
  primeRuns?: number;
  /** Parse an exit code reported on the console (VMs), overriding the process exit code. */
  exitCodeFromLines?: (lines: readonly OutputLine[]) => number | null;
  /** Extra teardown when killing (e.g. `podman rm -f`), run after the process group is signalled. */
  onKill?: () => Promise<void>;
  /** Inspect the finished process and report an infrastructure failure, if any. */
  classifyExit?: (info: ExitInfo, lines: readonly OutputLine[]) => ExitInfo['infraFailure'];
}

/**
 * No-op launches the launcher runs right before a launch's stamp when it is otherwise idle: a launch
 * after a pause costs more than one right after another (launcher/PROTOCOL.md, "Warm-up launches");
 * three bring it back to the back-to-back figure hyperfine reports.
 */
export const WARMUP_LAUNCHES = 3;

/** SANDBENCH_LAUNCH_WARMUPS=0..16 overrides the count (0 times cold launches, for comparison). */
export function launchWarmups(): number {
  const raw = process.env.SANDBENCH_LAUNCH_WARMUPS;
  if (raw === undefined || raw === '') return WARMUP_LAUNCHES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 16) throw new Error(`SANDBENCH_LAUNCH_WARMUPS=${raw}: give a whole number from 0 to 16 (default ${WARMUP_LAUNCHES})`);
  return n;
}

/** Grace between SIGTERM and SIGKILL when tearing a tree down. */
export const KILL_GRACE_MS = 2000;

/** The final ExitInfo: console exit code (VMs) and the adapter's infrastructure verdict applied. */
export function finishExit(options: SpawnOptions, info: ExitInfo, lines: readonly OutputLine[]): ExitInfo {
  const exitCode = options.exitCodeFromLines ? options.exitCodeFromLines(lines) : info.exitCode;
  const withCode = { ...info, exitCode };
  if (info.infraFailure) return withCode;
  const infraFailure = options.classifyExit?.(withCode, lines);
  return infraFailure ? { ...withCode, infraFailure } : withCode;
}
