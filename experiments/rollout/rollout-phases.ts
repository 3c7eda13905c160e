/**
 * Per-rollout phases and per-cell model-service figures, PURE (stamps + model journal entries →
 * numbers). Phases are contiguous on the host monotonic clock, so they sum to the wall exactly:
 *   prepare    start → workspace staged
 *   ready      staged → the agent's first model request arrived (substrate start + agent start)
 *   model      Σ (service end − arrival) of the attempt's generation requests: queue wait + service
 *   tool       first request → agent exit, minus model: tool execution and the agent's own work
 *   evaluation agent exit → score parsed (collect, candidate, fresh scoring sandbox)
 *   drop       score → end (retain/drop, sandbox and scratch removal)
 * substrate = wall − model (everything the substrate and harness add around the model).
 */
import type { ModelJournalEntry } from '../../services/model/index.ts';
import type { AttemptStamps } from './rollout-attempt.ts';

const GENERATION = new Set(['responses', 'chat', 'anthropic']);
const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;

export interface AttemptModelTraffic {
  generations: number;
  firstArrivalNs: bigint | null;
  /** Σ (t_service_end − t_arrival) over generation requests (queue + service; a failed one counts its queue). */
  modelMs: number;
  queueMs: number;
  serviceMs: number;
  /** Σ configured service time (due end − scheduled start): what the capacity promised. */
  configuredServiceMs: number;
  /** Non-ok statuses seen (injected_error, service_closed, …). */
  failures: Record<string, number>;
  http5xx: number;
}

export function attemptTraffic(entries: readonly ModelJournalEntry[]): AttemptModelTraffic {
  const traffic: AttemptModelTraffic = { generations: 0, firstArrivalNs: null, modelMs: 0, queueMs: 0, serviceMs: 0, configuredServiceMs: 0, failures: {}, http5xx: 0 };
  for (const entry of entries) {
    if (entry.status !== 'ok') traffic.failures[entry.status] = (traffic.failures[entry.status] ?? 0) + 1;
    if (entry.http_status >= 500) traffic.http5xx += 1;
    if (!GENERATION.has(entry.endpoint)) continue;
    traffic.generations += 1;
    const arrival = BigInt(entry.t_arrival_ns);
    if (traffic.firstArrivalNs === null || arrival < traffic.firstArrivalNs) traffic.firstArrivalNs = arrival;
    traffic.queueMs += entry.queue_wait_ms ?? 0;
    traffic.serviceMs += entry.service_ms ?? 0;
    if (entry.t_service_end_ns !== null) traffic.modelMs += ms(arrival, BigInt(entry.t_service_end_ns));
    else traffic.modelMs += entry.queue_wait_ms ?? 0;
    if (entry.t_due_end_ns !== null && entry.t_scheduled_start_ns !== null) traffic.configuredServiceMs += ms(BigInt(entry.t_scheduled_start_ns), BigInt(entry.t_due_end_ns));
  }
  return traffic;
}

export interface AttemptPhases {
  wall_ms: number;
  prepare_ms: number;
  ready_ms: number;
  model_ms: number;
  tool_ms: number;
  evaluation_ms: number;
  drop_ms: number;
  substrate_ms: number;
}

export function attemptPhases(stamps: AttemptStamps, traffic: AttemptModelTraffic): AttemptPhases {
  const staged = stamps.staged ?? stamps.end;
  const exit = stamps.exit ?? stamps.end;
  const scored = stamps.scored ?? exit;
  // The first request can only fall inside [staged, exit]; clamp so a stray entry cannot make a phase negative.
  const first = traffic.firstArrivalNs === null ? exit : traffic.firstArrivalNs < staged ? staged : traffic.firstArrivalNs > exit ? exit : traffic.firstArrivalNs;
  const agentMs = ms(first, exit);
  const model = Math.min(traffic.modelMs, agentMs);
  const wall = ms(stamps.start, stamps.end);
  return {
    wall_ms: wall,
    prepare_ms: ms(stamps.start, staged),
    ready_ms: ms(staged, first),
    model_ms: model,
    tool_ms: agentMs - model,
    evaluation_ms: ms(exit, scored),
    drop_ms: ms(scored, stamps.end),
    substrate_ms: wall - model,
  };
}

export type Bottleneck = 'model-bound' | 'substrate-bound' | 'mixed';

export interface CellModelFigures {
  /** busy slot-time ÷ (slots × cell wall). */
  utilization: number;
  meanQueueWaitMs: number;
  meanSubstrateMs: number;
  meanModelMs: number;
  bottleneck: Bottleneck;
}

/**
 * The cell's verdict: model-bound when the service is ≥ 90% busy or rollouts wait longer in its
 * queue than the substrate takes; substrate-bound when utilization is under 50% and the substrate
 * takes most of the wall; mixed otherwise. Means are over completed (scored) rollouts.
 */
export function bottleneckOf(utilization: number, meanQueueWaitMs: number, meanSubstrateMs: number, meanWallMs: number): Bottleneck {
  if (utilization >= 0.9 || meanQueueWaitMs >= meanSubstrateMs) return 'model-bound';
  if (utilization < 0.5 && meanSubstrateMs >= 0.5 * meanWallMs) return 'substrate-bound';
  return 'mixed';
}

/**
 * Busy slot-time of a cell's journal entries: per generation request that got a slot, the span the
 * capacity schedule charged it (scheduled start → due end, services/model/capacity.ts), else its
 * measured service. The schedule hands a slot over at the previous reply's due end, so a reply that
 * started late still ends on time and its measured service_ms undercounts the slot's occupancy.
 */
export function busySlotMs(entries: readonly ModelJournalEntry[]): number {
  let total = 0;
  for (const entry of entries) {
    if (!GENERATION.has(entry.endpoint) || entry.t_service_start_ns === null) continue;
    const charged = entry.t_scheduled_start_ns !== null && entry.t_due_end_ns !== null ? ms(BigInt(entry.t_scheduled_start_ns), BigInt(entry.t_due_end_ns)) : null;
    total += Math.max(charged ?? 0, entry.service_ms ?? 0);
  }
  return total;
}

/** From the cell's first model request to its last reply: the span in which the model had work (utilization's denominator, so the loop's substrate-only ramp-up and drain do not dilute it). */
export function modelSpanMs(entries: readonly ModelJournalEntry[]): number | null {
  let first: bigint | null = null;
  let last: bigint | null = null;
  for (const entry of entries) {
    if (!GENERATION.has(entry.endpoint)) continue;
    const arrival = BigInt(entry.t_arrival_ns);
    if (first === null || arrival < first) first = arrival;
    if (entry.t_service_end_ns !== null) {
      const end = BigInt(entry.t_service_end_ns);
      if (last === null || end > last) last = end;
    }
  }
  return first !== null && last !== null && last > first ? ms(first, last) : null;
}
