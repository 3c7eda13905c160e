/**
 * Per-attempt view of a run-wide model journal, for the kinds' records: when an attempt first
 * reached the model, which script turns it was answered, how long it waited for and occupied the
 * model (queue + service), and every failure status it met. Attempts are named by the URL prefix
 * /a/<attempt-id>/ (journal `attempt`); traffic without one is grouped under attempt null.
 */
import type { ModelJournalEntry } from './journal.ts';
import type { ScriptTask } from './script.ts';
import type { ServiceStats } from './server.ts';

export interface AttemptTraffic {
  attempt: string | null;
  taskIds: string[];
  /** Every request, side calls included. */
  requests: number;
  /** Generation requests (Responses, Chat Completions, Messages) answered in full. */
  generations: number;
  /** Distinct script turns answered in full (tool, text or submit replies), ascending. */
  turnsAnswered: number[];
  /** Side replies (no-tools requests such as a title call) answered in full. */
  sideReplies: number;
  /** Requests by non-ok journal status (tool_mismatch, injected_error, client_closed, …). */
  failures: Record<string, number>;
  firstArrivalNs: bigint | null;
  /** Arrival of the first generation request: the CLI's "first model request". */
  firstGenerationNs: bigint | null;
  lastServiceEndNs: bigint | null;
  /** Sums over generation requests. */
  queueWaitMs: number;
  serviceMs: number;
}

const GENERATION = new Set(['responses', 'chat', 'anthropic']);

export function summarizeAttempts(entries: readonly ModelJournalEntry[]): AttemptTraffic[] {
  const byAttempt = new Map<string | null, AttemptTraffic>();
  for (const entry of entries) {
    let traffic = byAttempt.get(entry.attempt);
    if (!traffic) {
      traffic = { attempt: entry.attempt, taskIds: [], requests: 0, generations: 0, turnsAnswered: [], sideReplies: 0, failures: {}, firstArrivalNs: null, firstGenerationNs: null, lastServiceEndNs: null, queueWaitMs: 0, serviceMs: 0 };
      byAttempt.set(entry.attempt, traffic);
    }
    traffic.requests += 1;
    if (entry.task_id !== null && !traffic.taskIds.includes(entry.task_id)) traffic.taskIds.push(entry.task_id);
    const arrival = BigInt(entry.t_arrival_ns);
    if (traffic.firstArrivalNs === null || arrival < traffic.firstArrivalNs) traffic.firstArrivalNs = arrival;
    if (entry.status !== 'ok') traffic.failures[entry.status] = (traffic.failures[entry.status] ?? 0) + 1;
    if (!GENERATION.has(entry.endpoint)) continue;
    if (traffic.firstGenerationNs === null || arrival < traffic.firstGenerationNs) traffic.firstGenerationNs = arrival;
    traffic.queueWaitMs += entry.queue_wait_ms ?? 0;
    traffic.serviceMs += entry.service_ms ?? 0;
    if (entry.t_service_end_ns !== null) {
      const end = BigInt(entry.t_service_end_ns);
      if (traffic.lastServiceEndNs === null || end > traffic.lastServiceEndNs) traffic.lastServiceEndNs = end;
    }
    if (entry.status !== 'ok') continue;
    traffic.generations += 1;
    if (entry.reply === 'side') traffic.sideReplies += 1;
    else if (entry.turn !== null && !traffic.turnsAnswered.includes(entry.turn)) traffic.turnsAnswered.push(entry.turn);
  }
  for (const traffic of byAttempt.values()) traffic.turnsAnswered.sort((a, b) => a - b);
  return [...byAttempt.values()];
}

/**
 * The validity check "the server saw exactly the scripted turns": every turn of the task answered
 * in full, nothing beyond them, and no failed request. Returns null when it holds, else the reason.
 */
export function scriptedTurnsProblem(traffic: AttemptTraffic, task: ScriptTask): string | null {
  const expected = task.turns.map((_, index) => index);
  const failures = Object.entries(traffic.failures).map(([status, count]) => `${count}× ${status}`);
  if (failures.length > 0) return `model requests failed: ${failures.join(', ')}`;
  if (traffic.taskIds.some((id) => id !== task.id)) return `traffic for other tasks: ${traffic.taskIds.join(', ')}`;
  if (traffic.turnsAnswered.join(',') !== expected.join(',')) return `turns answered [${traffic.turnsAnswered.join(', ')}], scripted [${expected.join(', ')}]`;
  return null;
}

/**
 * Service-wide stats from a journal (what stats() reports, derived after the fact: for a service in
 * another process, or a stored bundle). maxQueued is the largest queue_depth an entry recorded.
 */
export function statsFromJournal(entries: readonly ModelJournalEntry[], slots: number, uptimeMs: number): ServiceStats {
  const byStatus: Record<string, number> = {};
  let generations = 0;
  let busySlotMs = 0;
  let queueWaitMsTotal = 0;
  let maxQueued = 0;
  for (const entry of entries) {
    byStatus[entry.status] = (byStatus[entry.status] ?? 0) + 1;
    maxQueued = Math.max(maxQueued, entry.queue_depth ?? 0);
    if (!GENERATION.has(entry.endpoint)) continue;
    if (entry.status === 'ok') generations += 1;
    if (entry.t_service_start_ns === null) continue;
    busySlotMs += entry.service_ms ?? 0;
    queueWaitMsTotal += entry.queue_wait_ms ?? 0;
  }
  return { slots, uptimeMs, requests: entries.length, generations, byStatus, busySlotMs, queueWaitMsTotal, maxQueued, active: null, queued: null };
}
