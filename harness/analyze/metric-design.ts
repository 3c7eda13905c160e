/**
 * What one recorded value of a metric stands for, declared by the kind that records it (kinds
 * describe themselves; generic code reads the declaration, never a metric's name):
 * - its unit of replication: a value per `trial`, per `attempt` (the rollout kind's trials), per
 *   `cell` run (recorded once for a closed loop of attempts and copied onto each attempt's record),
 *   or per `run`. Copies are one observation, however many records carry them: an interval over
 *   them is zero-width and a verdict on them is noise (issue 30).
 * - its scale: `continuous` (timings, bytes: medians), or `score` (a higher-is-better reward:
 *   compared as matched pairs, by success proportion when 0/1, harness/stats paired-score.ts).
 */
import type { Observation } from './arm-metric.ts';

export type ReplicationUnit = 'trial' | 'attempt' | 'cell' | 'run';
export type MetricScale = 'continuous' | 'score';

export interface MetricDesign {
  unit: ReplicationUnit;
  scale: MetricScale;
}

/** Every metric of a kind that declares nothing: one independent value per trial, a measurement. */
export const PER_TRIAL: MetricDesign = { unit: 'trial', scale: 'continuous' };

/** Trials and attempts are the units a run replicates; cells and runs are what a closed loop or a whole run yields once. */
export function isReplicated(unit: ReplicationUnit): boolean {
  return unit === 'trial' || unit === 'attempt';
}

/** What a per-cell or per-run comparison says instead of an interval: n is the units on the thinner side. */
export function noIntervalText(units: number): string {
  return `n = ${units} per run, no interval`;
}

/** The fewest units a side needs for an interval: one value per run is a description, not a sample. */
export const MIN_UNITS_FOR_INTERVAL = 2;

/** Values of one arm × metric with what they stand for (the subset of ArmMetricData this module needs). */
export interface DesignedData {
  design?: MetricDesign;
  observations: Observation[];
  replicates?: Observation[];
}

export function designOf(data: DesignedData): MetricDesign {
  return data.design ?? PER_TRIAL;
}

/** One observation per unit of replication (the observations themselves for trial and attempt metrics). */
export function replicatesOf(data: DesignedData): Observation[] {
  return data.replicates ?? data.observations;
}
