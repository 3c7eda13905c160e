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
  /** Parse an exit code reported on the console (VMs), overriding the process exit code. */
  exitCodeFromLines?: (lines: readonly OutputLine[]) => number | null;
  /** Extra teardown when killing (e.g. `podman rm -f`), run after the process group is signalled. */
  onKill?: () => Promise<void>;
  /** Inspect the finished process and report an infrastructure failure, if any. */
  classifyExit?: (info: ExitInfo, lines: readonly OutputLine[]) => ExitInfo['infraFailure'];
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
