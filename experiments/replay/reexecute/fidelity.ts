/**
 * Observation fidelity of one re-executed call (issue 19): the replayed output against the
 * observation the trajectory recorded. Both sides are normalized the same way (trailing newlines
 * removed: agents store shell output with or without the final newline) and then compared byte for
 * byte. A difference on a call the ground truth marks fresh is `differs-expected`; any other
 * difference, including a different exit code where the format records one, is `differs-unexpected`
 * and carries a digest of the difference, so it is never silently accepted.
 */
import { createHash } from 'node:crypto';

export const FIDELITY_VERDICTS = ['identical', 'differs-expected', 'differs-unexpected'] as const;
export type FidelityVerdict = (typeof FIDELITY_VERDICTS)[number];

export interface RecordedCall {
  id: string;
  command: string;
  observation: string;
  /** Exit code where the native format records one, else null (never assumed 0). */
  exitCode: number | null;
  /** Ground truth says the output is inherently fresh. */
  fresh: boolean;
}

export interface ReplayedCall {
  exitCode: number;
  output: string;
  durationMs: number;
}

export interface CallFidelity {
  index: number;
  id: string;
  verdict: FidelityVerdict;
  /** sha256 over both normalized sides when they differ: one digest names one difference. */
  diff_digest: string | null;
  /** First differing character offset and short excerpts of both sides (for the notes). */
  first_difference: { offset: number; recorded: string; replayed: string } | null;
  exit_code_recorded: number | null;
  exit_code_replayed: number;
}

export const normalizeObservation = (text: string) => text.replace(/\n+$/, '');

function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

export function callFidelity(index: number, recorded: RecordedCall, replayed: ReplayedCall): CallFidelity {
  const before = normalizeObservation(recorded.observation);
  const after = normalizeObservation(replayed.output);
  const exitDiffers = recorded.exitCode !== null && recorded.exitCode !== replayed.exitCode;
  const same = before === after && !exitDiffers;
  const offset = firstDifference(before, after);
  return {
    index,
    id: recorded.id,
    verdict: same ? 'identical' : recorded.fresh ? 'differs-expected' : 'differs-unexpected',
    diff_digest: same ? null : `sha256:${createHash('sha256').update(`${recorded.exitCode}\0${before}\0${replayed.exitCode}\0${after}`).digest('hex')}`,
    first_difference: same ? null : { offset, recorded: before.slice(offset, offset + 40), replayed: after.slice(offset, offset + 40) },
    exit_code_recorded: recorded.exitCode,
    exit_code_replayed: replayed.exitCode,
  };
}

export function fidelityCounts(calls: readonly CallFidelity[]): Record<FidelityVerdict, number> {
  const counts = { identical: 0, 'differs-expected': 0, 'differs-unexpected': 0 };
  for (const call of calls) counts[call.verdict]++;
  return counts;
}
