/** samples.csv: long format, one row per trial and metric, warmups and failures included (flagged), values as measured. */
import { armLabel, type TrialRecord } from '../journal/trial-record.ts';
import type { Cell } from '../bundle/csv.ts';
import { unitOf } from './units.ts';

export const SAMPLES_HEADER = [
  'run_id', 'trial_id', 'experiment', 'arm', 'backend', 'variant', 'block', 'position', 'warmup', 'outcome',
  'failure_category', 'metric', 'value', 'unit',
] as const;

/** Journal order is kept (a resumed trial's superseded record stays visible); metrics sorted by name. */
export function sampleRows(records: readonly TrialRecord[]): Cell[][] {
  const rows: Cell[][] = [];
  for (const r of records) {
    const head: Cell[] = [r.run_id, r.trial_id, r.experiment, armLabel(r.arm), r.arm.backend, r.arm.variant, r.block, r.position, r.warmup, r.outcome, r.failure_category];
    const metrics = Object.keys(r.metrics).sort();
    // A trial with no metric at all (failed before timing) still gets a row, so nothing disappears.
    if (metrics.length === 0) rows.push([...head, null, null, null]);
    for (const metric of metrics) rows.push([...head, metric, r.metrics[metric]!, unitOf(metric)]);
  }
  return rows;
}
