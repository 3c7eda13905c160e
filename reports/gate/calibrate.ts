/**
 * `sandbench gate --calibrate <A/A runs...>`: the run-level sd of each metric's log statistic from
 * several runs of the SAME build (same spec, same host class), net of within-run sampling variance
 * (harness/stats betweenRunVariance). Written into the gate file as `run_variance`, it widens a
 * one-run-per-side gate so that run-to-run offsets (boot, page cache, layout) are covered.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { UserError } from '../../harness/errors.ts';
import { betweenRunVariance, seedFromString, STATISTIC_P, type GateStatistic } from '../../harness/stats/index.ts';
import { samplesOf, type AnalyzedBundle as Bundle } from '../../harness/analyze/index.ts';
import { armsOf } from '../compare/bundle-comparison.ts';
import { defaultGateMetrics } from './gate.ts';

export const MIN_CALIBRATION_RUNS = 3;

export interface CalibrationEntry {
  metric: string;
  statistic: GateStatistic;
  /** The arm with the largest run sd (the conservative choice for a gate over every arm). */
  arm: string;
  sd: number;
  df: number;
  runs: string[];
  perArm: { arm: string; sd: number }[];
}

export function calibrate(runs: Bundle[], options: { metrics?: string[]; statistic?: GateStatistic } = {}): CalibrationEntry[] {
  if (runs.length < MIN_CALIBRATION_RUNS) throw new UserError(`--calibrate needs at least ${MIN_CALIBRATION_RUNS} A/A runs of the same build (got ${runs.length}): a run variance from 2 runs has 1 degree of freedom`);
  const statistic = options.statistic ?? 'p50';
  const metrics = options.metrics && options.metrics.length > 0 ? options.metrics : defaultGateMetrics(runs[0]!, runs[1]!);
  const arms = armsOf(runs[0]!).filter((a) => runs.every((r) => armsOf(r).includes(a)));
  if (arms.length === 0) throw new UserError('--calibrate: no arm is present in every run');
  const ids = runs.map((r) => r.resolved.run_id);
  const out: CalibrationEntry[] = [];
  for (const metric of metrics) {
    const perArm: { arm: string; sd: number }[] = [];
    for (const arm of arms) {
      const values = runs.map((r) => samplesOf(r.analysis, metric, arm).map((s) => s.value).filter((v) => v > 0));
      if (values.some((v) => v.length < 6)) continue;
      const { variance } = betweenRunVariance([values], STATISTIC_P[statistic], seedFromString(`${ids.join('+')}:${metric}:${arm}:calibrate`));
      perArm.push({ arm, sd: Math.sqrt(variance ?? 0) });
    }
    if (perArm.length === 0) continue;
    const worst = perArm.reduce((a, b) => (b.sd > a.sd ? b : a));
    out.push({ metric, statistic, arm: worst.arm, sd: worst.sd, df: runs.length - 1, runs: ids, perArm });
  }
  if (out.length === 0) throw new UserError('--calibrate: no metric has ≥ 6 positive ok values in every run for any arm');
  return out;
}

/** Writes (or updates) the gate file's run_variance section, keeping every other key. */
export function writeCalibration(path: string, entries: CalibrationEntry[], now = new Date()): void {
  let document: Record<string, unknown> = {};
  if (existsSync(path)) {
    const parsed: unknown = parseYaml(readFileSync(path, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) document = parsed as Record<string, unknown>;
  }
  const runVariance: Record<string, unknown> = {};
  for (const e of entries) runVariance[e.metric] = { sd: Number(e.sd.toPrecision(4)), df: e.df, statistic: e.statistic, runs: e.runs, calibrated_at: now.toISOString().slice(0, 10) };
  document.run_variance = runVariance;
  writeFileSync(path, stringifyYaml(document));
}

export function calibrationText(entries: CalibrationEntry[]): string {
  const lines = ['run variance (sd of the log statistic between A/A runs, net of within-run sampling variance; method of moments over the runs, floored at 0):'];
  for (const e of entries) {
    lines.push(`  ${e.metric} ${e.statistic.toUpperCase()}: τ = ${e.sd.toPrecision(3)} (${(100 * (Math.exp(e.sd) - 1)).toFixed(2)}%), ${e.df} df from ${e.runs.length} runs; largest on arm ${e.arm} (${e.perArm.map((a) => `${a.arm} ${a.sd.toPrecision(3)}`).join(', ')})`);
  }
  return lines.join('\n');
}
