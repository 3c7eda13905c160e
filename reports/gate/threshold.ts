/** Gate thresholds ("5%" or a fraction such as 0.05) and the gate file (per-metric thresholds). */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../../harness/errors.ts';
import { GATE_STATISTICS, type GateStatistic, type RunVariance } from '../../harness/stats/index.ts';

/** "5%" → 0.05; "0.05" → 0.05. Bare numbers ≥ 1 are refused (ambiguous: 5 meant 5% or 500%?). */
export function parseThreshold(text: string | number, where: string): number {
  const raw = String(text).trim();
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(raw);
  const value = percent ? Number(percent[1]) / 100 : /^\d*\.?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0 || (!percent && value >= 1) || value >= 10) {
    throw new UserError(`${where}: threshold "${raw}" is not valid; use a percentage such as "5%" or a fraction such as 0.05`);
  }
  return value;
}

const ThresholdValue = z.union([z.string(), z.number()]);
const Statistic = z.enum(GATE_STATISTICS as [GateStatistic, ...GateStatistic[]]);
/** What `sandbench gate --calibrate` writes per metric: the run-level sd of the log statistic from A/A runs. */
const RunVarianceEntry = z
  .object({
    sd: z.number().nonnegative(),
    df: z.number().int().positive(),
    statistic: Statistic.optional(),
    runs: z.array(z.string()).optional(),
    calibrated_at: z.string().optional(),
  })
  .strict();

export const GateFileSchema = z
  .object({
    /** Default threshold for every gated metric without its own. */
    threshold: ThresholdValue.optional(),
    /** Failed or invalid formal trials allowed per arm, as a fraction of planned (above → invalid). */
    max_failed_fraction: z.number().min(0).max(1).optional(),
    /** Metric → threshold, or metric → { threshold }. The keys are the metrics gated together. */
    metrics: z.record(z.string(), z.union([ThresholdValue, z.object({ threshold: ThresholdValue.optional(), statistic: Statistic.optional() }).strict()])).optional(),
    /** Arms to gate (default: every arm). */
    arms: z.array(z.string()).optional(),
    /** Default statistic: p50, p90 or p95. */
    statistic: Statistic.optional(),
    /** Interleaved A/B: the two arms of one run that are the gate's two sides. */
    baseline_arm: z.string().min(1).optional(),
    candidate_arm: z.string().min(1).optional(),
    /** Metric → calibrated run variance (written by `sandbench gate --calibrate`). */
    run_variance: z.record(z.string(), RunVarianceEntry).optional(),
  })
  .strict();

export interface GateFile {
  threshold?: number;
  maxFailedFraction?: number;
  metrics?: Record<string, number | undefined>;
  statistics?: Record<string, GateStatistic | undefined>;
  statistic?: GateStatistic;
  arms?: string[];
  baselineArm?: string;
  candidateArm?: string;
  runVariance?: Record<string, RunVariance | undefined>;
}

export function readGateFile(path: string): GateFile {
  let document: unknown;
  try {
    document = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${path}: cannot read the gate file (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  const parsed = GateFileSchema.safeParse(document ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`${path}: ${issue.path.join('.') || '(top level)'}: ${issue.message} (expected keys: threshold, max_failed_fraction, metrics, arms, statistic, baseline_arm, candidate_arm, run_variance)`);
  }
  const file = parsed.data;
  const metrics: Record<string, number | undefined> = {};
  const statistics: Record<string, GateStatistic | undefined> = {};
  for (const [metric, value] of Object.entries(file.metrics ?? {})) {
    const raw = typeof value === 'object' ? value.threshold : value;
    metrics[metric] = raw === undefined ? undefined : parseThreshold(raw, `${path}: metrics.${metric}`);
    if (typeof value === 'object' && value.statistic) statistics[metric] = value.statistic;
  }
  if ((file.baseline_arm === undefined) !== (file.candidate_arm === undefined)) {
    throw new UserError(`${path}: baseline_arm and candidate_arm go together (the two arms of one run that an interleaved gate compares)`);
  }
  const runVariance: Record<string, RunVariance> = {};
  for (const [metric, v] of Object.entries(file.run_variance ?? {})) {
    runVariance[metric] = { sd: v.sd, df: v.df, source: `calibrated in ${path}${v.runs ? ` from ${v.runs.length} A/A runs` : ''}${v.calibrated_at ? ` on ${v.calibrated_at}` : ''}` };
  }
  return {
    threshold: file.threshold !== undefined ? parseThreshold(file.threshold, `${path}: threshold`) : undefined,
    maxFailedFraction: file.max_failed_fraction,
    metrics: file.metrics ? metrics : undefined,
    statistics: Object.keys(statistics).length > 0 ? statistics : undefined,
    statistic: file.statistic,
    arms: file.arms,
    baselineArm: file.baseline_arm,
    candidateArm: file.candidate_arm,
    runVariance: file.run_variance ? runVariance : undefined,
  };
}
