/**
 * One request's trial record. The verdict decides the outcome: verl's verdict equal to the one the
 * stream expects is `ok` (a timeout request that timed out is a valid measurement of what verl's
 * reward step pays for it); a program verdict other than the expected one is `invalid` /
 * `task_failed` (the substrate changed what the program did); a SandboxError or a failed HTTP call is
 * an infrastructure failure, never a task result. Only `ok` requests enter timing statistics; every
 * request stays in every denominator.
 */
import type { FailureCategory, Outcome, TrialRecord } from '../../harness/journal/trial-record.ts';
import type { RunCodeJournalEntry } from '../../services/run-code/index.ts';
import type { StreamEntry, VerlVerdict } from './request-stream.ts';

export interface RequestObservation {
  entry: StreamEntry;
  verdict: VerlVerdict;
  roundTripMs: number;
  http: number;
  requestId: string | null;
  clientError: string | null;
  tSentNs: bigint;
}

export interface CellFigures {
  /** `<block>:<cell label>`: the closed loop this request ran in. */
  run: string;
  concurrency: number;
  wallMs: number;
  requestsPerS: number;
  /** Requests per second whose verdict was the expected one: what the reward step gets right per second. */
  okPerS: number;
  loadAvg1mBefore: number;
  loadAvg1mAfter: number;
  /** The load client's process (load-client.ts): its id and the CPU it spent over the loop. */
  clientPid: number;
  clientCpuMs: number;
  clientMaxRssKib: number;
  /** The harness process serving the cell (server and executor plumbing) over the loop. */
  serverProcessCpuMs: number;
}

/** Per-request metrics copied from the server's journal line (null fields are left out, never zeroed). */
const JOURNAL_METRICS = ['queue_wait_ms', 'stage_ms', 'sandbox_start_ms', 'compile_ms', 'run_ms', 'sandbox_ms', 'collect_ms', 'teardown_ms', 'peak_rss_kib'] as const;

function verdictOutcome(observation: RequestObservation, journal: RunCodeJournalEntry | null): { outcome: Outcome; category: FailureCategory | null } {
  if (observation.verdict === observation.entry.expect) return { outcome: 'ok', category: null };
  if (observation.verdict === 'api_error') return { outcome: 'failed', category: 'upstream_failed' };
  if (observation.verdict === 'sandbox_error') return { outcome: 'failed', category: journal?.outcome === 'sandbox_killed' ? 'killed_externally' : 'setup_failed' };
  return { outcome: 'invalid', category: 'task_failed' };
}

export function requestRecord(base: TrialRecord, observation: RequestObservation, journal: RunCodeJournalEntry | null, cell: CellFigures): TrialRecord {
  const { outcome, category } = verdictOutcome(observation, journal);
  const metrics: Record<string, number> = {
    round_trip_ms: observation.roundTripMs, cell_requests_per_s: cell.requestsPerS, cell_ok_per_s: cell.okPerS, cell_wall_ms: cell.wallMs,
    // CPU over wall: cores the process kept busy. Near 1 the single-threaded client would be the limit.
    cell_client_cpu_ms: cell.clientCpuMs, cell_client_cpu_cores: cell.clientCpuMs / cell.wallMs, cell_server_process_cpu_cores: cell.serverProcessCpuMs / cell.wallMs,
  };
  for (const key of JOURNAL_METRICS) {
    const value = journal?.[key];
    if (typeof value === 'number') metrics[key] = value;
  }
  const notes: string[] = [];
  if (outcome !== 'ok') notes.push(`verl verdict ${observation.verdict}, stream expects ${observation.entry.expect}`);
  if (observation.clientError) notes.push(`client: ${observation.clientError}`);
  if (journal?.error) notes.push(`server: ${journal.error.slice(0, 300)}`);
  return {
    ...base,
    outcome,
    failure_category: category,
    exit_code: journal?.return_code ?? null,
    t_spawn_ns: observation.tSentNs.toString(),
    completion_ms: observation.roundTripMs,
    metrics,
    validity: { verdict_as_expected: observation.verdict === observation.entry.expect ? 'pass' : 'fail' },
    notes,
    facts: {
      concurrency: cell.concurrency,
      cell_run: cell.run,
      stream_entry: observation.entry.id,
      language: observation.entry.language,
      expected_verdict: observation.entry.expect,
      verl_verdict: observation.verdict,
      http_status: observation.http,
      request_id: observation.requestId,
      server_outcome: journal?.outcome ?? null,
      load_avg_1m_cell_start: cell.loadAvg1mBefore,
      load_avg_1m_cell_end: cell.loadAvg1mAfter,
      client_pid: cell.clientPid,
      client_max_rss_kib: cell.clientMaxRssKib,
    },
  };
}
