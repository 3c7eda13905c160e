/**
 * Capacity search: bisect the largest concurrency N at which every batch of a cell passes, for one
 * backend and workload, and report the bracket [largest passing, smallest failing]. Assumes pass/fail
 * is monotone in N (more workers never make a full budget easier); every probe is kept, so a
 * non-monotone result is visible in `probes` rather than hidden by the bracket.
 */
import type { ArmRef, TrialRecord } from '../../harness/journal/trial-record.ts';
import { armLabel } from '../../harness/journal/trial-record.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { baseRecord } from '../trial-experiment.ts';
import { containerClientsOf, runDensityBatch, vmControlsOf, type DensityWorkload } from './density-batch.ts';
import { batchOptions } from './density-kind.ts';
import { densitySection } from './density-plan.ts';
import { densityRecord } from './density-record.ts';

export interface CapacityProbe {
  concurrency: number;
  passed: boolean;
  /** Batches run at this N (a probe stops at its first failed batch: one failure decides the cell). */
  batches_run: number;
  batches_passed: number;
}

export interface CapacityBracket {
  /** Largest N where every batch passed; null when even `min` failed. */
  largest_passing: number | null;
  /** Smallest N seen failing above it; null when `max` passed (capacity ≥ max). */
  smallest_failing: number | null;
  probes: CapacityProbe[];
}

export type ProbeCell = (concurrency: number) => Promise<CapacityProbe>;

/** Bisection over [min, max]: O(log2(max − min)) probes instead of one per N. */
export async function bisectCapacity(min: number, max: number, probe: ProbeCell): Promise<CapacityBracket> {
  if (!(Number.isInteger(min) && Number.isInteger(max) && min >= 1 && max >= min)) throw new Error(`capacity search needs 1 <= min <= max, got ${min}..${max}`);
  const probes: CapacityProbe[] = [];
  const run = async (n: number) => {
    const result = await probe(n);
    probes.push(result);
    return result.passed;
  };
  if (!(await run(min))) return { largest_passing: null, smallest_failing: min, probes };
  if (min === max || (await run(max))) return { largest_passing: max, smallest_failing: null, probes };
  let [lo, hi] = [min, max];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await run(mid)) lo = mid;
    else hi = mid;
  }
  return { largest_passing: lo, smallest_failing: hi, probes };
}

export interface SearchOptions {
  arm: ArmRef;
  workload: DensityWorkload;
  min: number;
  max: number;
  /** Called with every batch record (journal it like a planned trial). */
  onRecord: (record: TrialRecord) => Promise<void> | void;
  /** Checked before each batch: true (a signal arrived) ends the search with CapacityInterrupted. */
  shouldStop?: () => boolean;
}

export class CapacityInterrupted extends Error {
  constructor() {
    super('capacity search interrupted');
  }
}

/** Runs the search with real batches; each batch is journaled through onRecord. */
export async function searchDensityCapacity(ctx: ExperimentContext, options: SearchOptions): Promise<CapacityBracket> {
  const { batches } = densitySection(ctx.spec);
  let position = 0;
  return bisectCapacity(options.min, options.max, async (concurrency) => {
    let passed = 0;
    let ran = 0;
    for (let batch = 0; batch < batches; batch++) {
      if (options.shouldStop?.()) throw new CapacityInterrupted();
      const trialId = `s${String(concurrency).padStart(3, '0')}-b${batch}-${armLabel(options.arm)}-${options.workload}`;
      const planned: PlannedTrial = { trial_id: trialId, block: batch, position: position++, warmup: false, arm: options.arm, seed: ctx.spec.seed, params: { workload: options.workload, concurrency } };
      const batchOpts = batchOptions(ctx, options.arm, trialId, options.workload, concurrency);
      const result = await runDensityBatch(batchOpts);
      const record = densityRecord(baseRecord(ctx, planned), { workload: options.workload, concurrency, vmControls: vmControlsOf(batchOpts), containerClients: containerClientsOf(batchOpts) }, result);
      await options.onRecord({ ...record, facts: { ...record.facts, capacity_search: true } });
      ran++;
      if (record.outcome !== 'ok') break;
      passed++;
    }
    return { concurrency, passed: passed === batches, batches_run: ran, batches_passed: passed };
  });
}
