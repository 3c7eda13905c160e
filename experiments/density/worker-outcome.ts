/**
 * Classifies one density worker from what the host saw: its lines, its exit, whether it was
 * released, and whether the budget recorded OOM kills. Pure, so every rule is unit-tested.
 */
import type { ExitInfo, OutputLine, TimingPath } from '../../harness/contracts/executor.ts';

export const DENSITY_READY = 'PVISOR_DENSITY_READY';
export const DENSITY_RESULT = 'PVISOR_DENSITY_RESULT';
export const EXPECTED_CHANGES = 4;

export type WorkerState = 'valid' | 'invalid' | 'oom' | 'not_ready' | 'timeout' | 'launch_failed' | 'task_failed' | 'infra_failed';

export interface WorkerOutcome {
  index: number;
  token: string;
  state: WorkerState;
  /** Short stable reason key (counted in failure_reasons). */
  reason: string | null;
  detail: string | null;
  ready_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  /** How this worker was launched and stamped (set by the batch; absent from the pure classification). */
  timing?: TimingPath | null;
}

export interface MarkerPayload {
  token?: unknown;
  bytes?: unknown;
  checksum?: unknown;
  changes?: unknown;
  integrity?: unknown;
}

function markerPayloads(lines: readonly OutputLine[], marker: string): (MarkerPayload | null)[] {
  return lines
    .filter((line) => line.stream === 'stdout' && line.text.startsWith(`${marker} `))
    .map((line) => {
      try {
        const parsed: unknown = JSON.parse(line.text.slice(marker.length + 1));
        return parsed && typeof parsed === 'object' ? (parsed as MarkerPayload) : null;
      } catch {
        return null;
      }
    });
}

export interface ClassifyInput {
  index: number;
  token: string;
  payloadBytes: number;
  lines: readonly OutputLine[];
  exit: ExitInfo | null;
  launchError: string | null;
  released: boolean;
  readyMs: number | null;
  /** The budget counted at least one OOM kill during the batch. */
  budgetOomKills: number;
  /** The harness killed this worker (not ready at the barrier, or the batch was refused). */
  killedByHarness: boolean;
}

const SIGKILL_EXIT = 137;

/** A SIGKILL the harness did not send, in a budget that counted OOM kills, is an OOM kill. */
function looksOomKilled(input: ClassifyInput): boolean {
  if (input.killedByHarness || input.budgetOomKills === 0 || !input.exit) return false;
  return input.exit.signal === 'SIGKILL' || input.exit.exitCode === SIGKILL_EXIT || input.exit.infraFailure?.category === 'oom';
}

export function classifyWorker(input: ClassifyInput): WorkerOutcome {
  const base = { index: input.index, token: input.token, ready_ms: input.readyMs, exit_code: input.exit?.exitCode ?? null, signal: input.exit?.signal ?? null };
  const fail = (state: WorkerState, reason: string, detail: string | null = null): WorkerOutcome => ({ ...base, state, reason, detail });
  if (input.launchError !== null) return fail('launch_failed', 'launch_failed', input.launchError);
  const exit = input.exit!;
  if (looksOomKilled(input)) return fail('oom', input.released ? 'oom_after_release' : 'oom_before_ready');
  if (exit.timedOut) return fail('timeout', input.released ? 'timeout_after_release' : 'timeout_before_ready');
  if (!input.released) return fail('not_ready', input.killedByHarness ? 'not_ready_at_barrier' : 'exited_before_ready', exit.exitCode === null ? null : `exit ${exit.exitCode}`);
  if (exit.infraFailure) return fail('infra_failed', exit.infraFailure.category, exit.infraFailure.reason);
  if (exit.exitCode !== 0) return fail('task_failed', 'nonzero_exit', `exit ${exit.exitCode ?? exit.signal}`);
  const ready = markerPayloads(input.lines, DENSITY_READY);
  const results = markerPayloads(input.lines, DENSITY_RESULT);
  if (ready.length !== 1 || results.length !== 1) return fail('invalid', 'marker_count', `${ready.length} READY, ${results.length} RESULT`);
  const [r, s] = [ready[0], results[0]];
  if (!r || !s) {
    // Keep the unparsable line: on a VM serial console kernel messages can land inside it.
    const bad = input.lines.find((l) => l.stream === 'stdout' && (l.text.startsWith(`${DENSITY_READY} `) || l.text.startsWith(`${DENSITY_RESULT} `)) && markerPayloads([l], l.text.split(' ')[0]!)[0] === null);
    return fail('invalid', 'marker_json', bad ? bad.text.slice(0, 300) : null);
  }
  if (r.token !== input.token || s.token !== input.token) return fail('invalid', 'token_mismatch');
  if (r.bytes !== input.payloadBytes) return fail('invalid', 'payload_size', `READY bytes ${String(r.bytes)}`);
  if (s.checksum !== r.checksum) return fail('invalid', 'checksum_mismatch');
  if (s.changes !== EXPECTED_CHANGES) return fail('invalid', 'changes_count', `changes ${String(s.changes)}`);
  if (s.integrity !== 'passed') return fail('invalid', 'integrity_failed');
  return { ...base, state: 'valid', reason: null, detail: null };
}
