/** Gate thresholds ("5%" or a fraction such as 0.05) and the gate file (per-metric thresholds). */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../../harness/errors.ts';

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

export const GateFileSchema = z
  .object({
    /** Default threshold for every gated metric without its own. */
    threshold: ThresholdValue.optional(),
    /** Failed or invalid formal trials allowed per arm, as a fraction of planned (above → invalid). */
    max_failed_fraction: z.number().min(0).max(1).optional(),
    /** Metric → threshold, or metric → { threshold }. The keys are the metrics gated together. */
    metrics: z.record(z.string(), z.union([ThresholdValue, z.object({ threshold: ThresholdValue }).strict()])).optional(),
    /** Arms to gate (default: every arm). */
    arms: z.array(z.string()).optional(),
  })
  .strict();

export interface GateFile {
  threshold?: number;
  maxFailedFraction?: number;
  metrics?: Record<string, number | undefined>;
  arms?: string[];
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
    throw new UserError(`${path}: ${issue.path.join('.') || '(top level)'}: ${issue.message} (expected keys: threshold, max_failed_fraction, metrics, arms)`);
  }
  const file = parsed.data;
  const metrics: Record<string, number | undefined> = {};
  for (const [metric, value] of Object.entries(file.metrics ?? {})) {
    const raw = typeof value === 'object' ? value.threshold : value;
    metrics[metric] = parseThreshold(raw, `${path}: metrics.${metric}`);
  }
  return {
    threshold: file.threshold !== undefined ? parseThreshold(file.threshold, `${path}: threshold`) : undefined,
    maxFailedFraction: file.max_failed_fraction,
    metrics: file.metrics ? metrics : undefined,
    arms: file.arms,
  };
}
