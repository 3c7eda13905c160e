/**
 * The verdict of one agent trial, a pure function of what was observed: the exit, the output lines,
 * the candidate file and the model service's journal entries that arrived during the trial (the
 * complete model traffic: every other destination is unreachable by construction and checked by
 * the conformance tests). Timing comes from the host clock only: the journal's arrival times and
 * the launch's spawn/exit times are both process.hrtime.bigint().
 */
import type { ExitInfo, OutputLine } from '../../harness/contracts/executor.ts';
import type { FailureCategory, Outcome } from '../../harness/journal/trial-record.ts';
import type { ModelJournalEntry } from '../../services/model/index.ts';

export const FORWARDER_READY = 'FORWARDER_READY';

/** Finer cause of a failed agent trial (facts.agent_failure), for the per-arm failure table. */
export type AgentFailure =
  | 'init_deadline' // no model request within the init deadline: stopped
  | 'timeout' // the trial's overall timeout
  | 'signal' // the CLI died of a signal (SIGILL: no AVX2 under qemu64)
  | 'no_model_contact' // exited without ever sending a model request
  | 'exit_nonzero' // talked to the model, then exited non-zero
  | 'script_mismatch' // the service could not answer from its script (tool list, turns)
  | 'service_failed' // the model service itself failed (upstream_failed)
  | 'infra' // the backend reported an infrastructure failure
  | 'wrong_turns' // exit 0 but the service did not see exactly the scripted turns
  | 'wrong_candidate'; // exit 0 but the candidate file does not hold the scripted bytes

export interface AgentObservation {
  tSpawnNs: bigint;
  exit: ExitInfo;
  lines: readonly OutputLine[];
  /** Journal entries with arrival in [spawn, exit], in journal order. */
  entries: readonly ModelJournalEntry[];
  /** Number of turns the script has for this task (tool turns + the final turn). */
  scriptedTurns: number;
  /** The candidate file's bytes (null when absent) and what they must be. */
  candidate: Buffer | null;
  expectedCandidate: string;
  /** True when the trial was stopped by the init deadline. */
  initDeadlineHit: boolean;
  initDeadlineMs: number;
}

export interface AgentVerdict {
  outcome: Outcome;
  category: FailureCategory | null;
  failure: AgentFailure | null;
  metrics: Record<string, number>;
  validity: Record<string, 'pass' | 'fail'>;
  notes: string[];
  facts: Record<string, unknown>;
}

const SIDE_ENDPOINTS: ReadonlySet<string> = new Set(['head', 'models', 'count_tokens', 'unknown']);
const SCRIPT_FAILURES: ReadonlySet<string> = new Set(['no_task_matched', 'tool_mismatch', 'script_exhausted', 'bad_request']);
const msSince = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/** Generation requests (the three wire protocols) as opposed to side calls (HEAD, /models, count_tokens) and unknown paths. */
export function isGeneration(entry: ModelJournalEntry): boolean {
  return !SIDE_ENDPOINTS.has(entry.endpoint);
}

const SIGNALS: Record<number, string> = { 4: 'SIGILL', 6: 'SIGABRT', 7: 'SIGBUS', 9: 'SIGKILL', 11: 'SIGSEGV', 15: 'SIGTERM' };

/** The CLI's signal: the launched process's own, or a shell's 128+N exit status (the entry script reports it so). */
export function exitSignal(exit: ExitInfo): string | null {
  if (exit.signal) return exit.signal;
  if (exit.exitCode !== null && exit.exitCode > 128 && exit.exitCode < 128 + 65) return SIGNALS[exit.exitCode - 128] ?? `SIG${exit.exitCode - 128}`;
  return null;
}

function stderrTail(lines: readonly OutputLine[], count = 6): string[] {
  return lines.filter((line) => line.stream === 'stderr' && line.text.trim()).slice(-count).map((line) => line.text.slice(0, 300));
}

export function judgeAgentTrial(o: AgentObservation): AgentVerdict {
  const generations = o.entries.filter(isGeneration);
  const side = o.entries.filter((entry) => !isGeneration(entry));
  const first = o.entries[0] ?? null;
  const firstToolResult = generations.find((entry) => (entry.tool_results ?? 0) > 0) ?? null;
  const forwarder = o.lines.find((line) => line.stream === 'stdout' && line.text.trim() === FORWARDER_READY) ?? null;
  const metrics: Record<string, number> = {
    completion_ms: msSince(o.tSpawnNs, o.exit.tExitNs),
    model_requests: generations.length,
    side_requests: side.length,
  };
  if (first) metrics.first_request_ms = msSince(o.tSpawnNs, BigInt(first.t_arrival_ns));
  // The request carrying the tool's result is when the host saw the tool's effect completed.
  if (firstToolResult) metrics.tool_result_ms = msSince(o.tSpawnNs, BigInt(firstToolResult.t_arrival_ns));
  if (forwarder) metrics.forwarder_ready_ms = msSince(o.tSpawnNs, forwarder.tNs);
  if (first && forwarder) metrics.forwarder_to_first_request_ms = msSince(forwarder.tNs, BigInt(first.t_arrival_ns));

  const answeredTurns = generations.filter((entry) => entry.status === 'ok' && entry.turn !== null).map((entry) => entry.turn!);
  const expectedTurns = Array.from({ length: o.scriptedTurns }, (_, index) => index);
  const turnsExact = answeredTurns.length === expectedTurns.length && expectedTurns.every((turn, index) => answeredTurns[index] === turn);
  const scriptErrors = o.entries.filter((entry) => SCRIPT_FAILURES.has(entry.status));
  const serviceErrors = o.entries.filter((entry) => entry.status === 'service_closed' || entry.http_status >= 500);
  const candidateOk = o.candidate !== null && o.candidate.toString('utf8') === o.expectedCandidate;
  const validity: Record<string, 'pass' | 'fail'> = {
    exit_zero: o.exit.exitCode === 0 && !o.exit.timedOut ? 'pass' : 'fail',
    scripted_turns: turnsExact ? 'pass' : 'fail',
    candidate_content: candidateOk ? 'pass' : 'fail',
  };
  const signal = exitSignal(o.exit);
  const facts: Record<string, unknown> = {
    signal,
    stderr_tail: stderrTail(o.lines),
    answered_turns: answeredTurns,
    journal_seqs: o.entries.map((entry) => entry.seq),
    side_calls: side.map((entry) => `${entry.method} ${entry.path} ${entry.http_status}`),
    user_agents: [...new Set(o.entries.map((entry) => entry.user_agent).filter((agent): agent is string => agent !== null))],
    entry_statuses: o.entries.map((entry) => entry.status),
  };
  const notes: string[] = [];

  const fail = (outcome: Outcome, category: FailureCategory, failure: AgentFailure, note: string): AgentVerdict => {
    notes.push(note, ...stderrTail(o.lines).map((line) => `stderr: ${line}`));
    return { outcome, category, failure, metrics, validity, notes, facts: { ...facts, agent_failure: failure } };
  };
  if (o.initDeadlineHit) {
    metrics.init_wait_ms = o.initDeadlineMs;
    return fail('failed', 'timeout', 'init_deadline', `no model request within the init deadline (${o.initDeadlineMs / 1000} s): stopped`);
  }
  if (o.exit.timedOut) return fail('failed', 'timeout', 'timeout', `trial timeout after ${metrics.completion_ms!.toFixed(0)} ms (${generations.length} model requests)`);
  if (serviceErrors.length > 0) return fail('failed', 'upstream_failed', 'service_failed', `the model service failed ${serviceErrors.length} request(s): ${serviceErrors[0]!.status} ${serviceErrors[0]!.error ?? ''}`.trim());
  if (scriptErrors.length > 0) return fail('failed', 'setup_failed', 'script_mismatch', `the model script could not answer this CLI: ${scriptErrors[0]!.status} ${scriptErrors[0]!.error ?? ''}`.trim());
  if (o.exit.infraFailure) return fail('failed', o.exit.infraFailure.category, 'infra', o.exit.infraFailure.reason);
  if (o.exit.exitCode !== 0) {
    if (signal) return fail('failed', 'task_failed', 'signal', `the CLI died of ${signal} (exit ${o.exit.exitCode ?? 'none'})${generations.length === 0 ? ' before any model request' : ''}`);
    if (generations.length === 0) return fail('failed', 'task_failed', 'no_model_contact', `the CLI exited ${o.exit.exitCode ?? 'without a code'} and never contacted the model service`);
    return fail('failed', 'task_failed', 'exit_nonzero', `the CLI exited ${o.exit.exitCode ?? 'without a code'} after ${generations.length} model request(s)`);
  }
  if (!turnsExact) return fail('invalid', 'task_failed', 'wrong_turns', `the service answered turns [${answeredTurns.join(', ')}], the script has [${expectedTurns.join(', ')}]`);
  if (!candidateOk) return fail('invalid', 'task_failed', 'wrong_candidate', `the candidate file holds ${o.candidate === null ? 'nothing (absent)' : JSON.stringify(o.candidate.toString('utf8').slice(0, 80))}, expected ${JSON.stringify(o.expectedCandidate)}`);
  return { outcome: 'ok', category: null, failure: null, metrics, validity, notes, facts };
}
