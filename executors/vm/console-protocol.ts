/**
 * What the guest says on its serial console (qemu stdout): the task's stdout lines, then
 * `REFERENCE_EXIT <code>` from the init after the task exited and the scratch disk was unmounted;
 * `SANDBENCH_INIT_ERROR <reason>` when the init could not set the trial up, and
 * `SANDBENCH_GUEST_OOM <n>` when the guest kernel's OOM killer fired during the trial.
 */
import type { ExitInfo, OutputLine } from '../../harness/contracts/executor.ts';

const EXIT_LINE = /^REFERENCE_EXIT (-?\d+)\s*$/;
export const INIT_ERROR_PREFIX = 'SANDBENCH_INIT_ERROR ';
/** The init's report of a non-zero oom_kill count in the guest's /proc/vmstat. */
const GUEST_OOM = /^SANDBENCH_GUEST_OOM (\d+)/;

/** The code of the last REFERENCE_EXIT console line (the init prints it after all task output). */
export function exitCodeFromLines(lines: readonly OutputLine[]): number | null {
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!;
    if (line.stream !== 'stdout') continue;
    const match = EXIT_LINE.exec(line.text);
    if (match) return Number.parseInt(match[1]!, 10);
  }
  return null;
}

function lastLines(lines: readonly OutputLine[], count: number): string {
  return lines
    .slice(-count)
    .map((line) => line.text.trim())
    .filter((text) => text.length > 0)
    .join(' | ')
    .slice(0, 400);
}

/** Infrastructure failure of a finished VM: init error, guest OOM kill, or no REFERENCE_EXIT at all. */
export function classifyExit(info: ExitInfo, lines: readonly OutputLine[]): ExitInfo['infraFailure'] {
  if (info.timedOut) return undefined;
  const initError = lines.find((line) => line.stream === 'stdout' && line.text.startsWith(INIT_ERROR_PREFIX));
  if (initError) return { category: 'setup_failed', reason: `guest init: ${initError.text.slice(INIT_ERROR_PREFIX.length).trim()}` };
  const oom = lines.find((line) => line.stream === 'stdout' && GUEST_OOM.test(line.text));
  if (oom) return { category: 'oom', reason: `the guest kernel OOM-killed ${GUEST_OOM.exec(oom.text)![1]} process(es)` };
  if (info.exitCode === null) {
    const how = info.signal ? `signal ${info.signal}` : 'exit';
    return { category: 'setup_failed', reason: `vm exited (${how}) without REFERENCE_EXIT; last console lines: ${lastLines(lines, 5) || '(none)'}` };
  }
  return undefined;
}
