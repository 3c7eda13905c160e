/**
 * The run-code schedule: cells = arm × client concurrency C; every block runs each cell once, cells
 * in a seeded shuffled order (warmup blocks first, flagged); a cell is `requests` consecutive planned
 * trials, one per request, that the kind sends as one closed loop of C clients. Request k of a block
 * is the same stream entry in every cell, so cells pair request by request across backends.
 */
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { runCodeOptions } from './run-code-spec.ts';

export interface RunCodeCell {
  arm: ArmRef;
  concurrency: number;
}

export function cellLabel(cell: RunCodeCell): string {
  return `${armLabel(cell.arm)}-c${cell.concurrency}`;
}

export interface RequestParams {
  cell: string;
  concurrency: number;
  /** Index of the request in its cell (0-based). */
  request: number;
  /** Index into the stream. */
  entry: number;
}

export function requestParams(planned: PlannedTrial): RequestParams {
  const p = planned.params ?? {};
  return { cell: String(p.cell), concurrency: Number(p.concurrency), request: Number(p.request), entry: Number(p.entry) };
}

/** The cell run a planned request belongs to: its cell in one (warmup or formal) block. */
export function cellRunKey(planned: Pick<PlannedTrial, 'block' | 'warmup' | 'params'>): string {
  return `${planned.warmup ? 'w' : 'b'}${planned.block}:${String(planned.params?.cell)}`;
}

/** Stream entry of request k in a block: consecutive entries from a block offset, wrapping, so every block sends a different slice of a long stream. */
export function streamIndex(block: number, warmup: boolean, request: number, requestsPerCell: number, streamLength: number): number {
  const offset = (warmup ? 0 : 1 + block) * requestsPerCell;
  return (offset + request) % streamLength;
}

export function buildRunCodePlan(spec: Spec, streamLength: number): Plan {
  const options = runCodeOptions(spec);
  const prng = createPrng(spec.seed);
  const cells = specArms(spec).flatMap((arm) => options.concurrency.map((concurrency) => ({ arm, concurrency })));
  const trials: PlannedTrial[] = [];
  const addBlocks = (count: number, warmup: boolean) => {
    for (let block = 0; block < count; block++) {
      for (const cell of shuffled(cells, prng)) {
        const label = cellLabel(cell);
        for (let request = 0; request < options.requests; request++) {
          trials.push({
            trial_id: `${warmup ? 'w' : 'b'}${String(block).padStart(4, '0')}-${label}-r${String(request).padStart(4, '0')}`,
            block,
            position: trials.length,
            warmup,
            arm: cell.arm,
            seed: prng.int(0, 0x7fffffff),
            params: { cell: label, concurrency: cell.concurrency, request, entry: streamIndex(block, warmup, request, options.requests, streamLength) },
          });
        }
      }
    }
  };
  addBlocks(spec.warmups, true);
  addBlocks(spec.trials, false);
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms: specArms(spec), warmup_blocks: spec.warmups, blocks: spec.trials, trials };
}
