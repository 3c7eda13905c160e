/**
 * What a spec may leave out of its generic fields, and what it gets instead. `name`, `experiment`
 * and `arms` are the whole of a minimal spec (hyperfine and ReBench run with sensible defaults
 * too); every default lands in resolved-spec.json with the list of fields it filled, so a bundle
 * still says exactly what ran.
 */
import { randomInt } from 'node:crypto';

export const SPEC_DEFAULTS = {
  /** Untimed blocks before the first timed one: enough for page cache and image caches to settle. */
  warmups: 3,
  /** Timed trials per arm: the order-statistic P50 CI needs ≥ 6; 30 gives a usable interval at a few-% effect. */
  trials: 30,
  /** Per-trial limit, generous for a cold VM boot (5-15 s here) with room for a slow task. */
  timeout: '60s',
} as const;

/** The fields whose absence the defaults cover: `seed` is drawn at random when absent. */
export const DEFAULTABLE_FIELDS = ['warmups', 'trials', 'seed', 'timeout'] as const;

/** A fresh schedule seed: printed at run start and recorded, so the run can be repeated with `--seed`. */
export function randomSeed(): number {
  return randomInt(0, 2 ** 31 - 1);
}

/** Which defaultable fields a spec document leaves out (before parsing). */
export function defaultedFields(document: unknown): string[] {
  if (document === null || typeof document !== 'object') return [];
  return DEFAULTABLE_FIELDS.filter((field) => (document as Record<string, unknown>)[field] === undefined);
}

/**
 * `arms: [host, staged]`: a bare label stands for `{backend: host}` (and `host:v1` for
 * `{backend: host, variant: v1}`, the label `--arms` takes); anything else is validated as written.
 */
export function expandArmShorthand(entry: unknown): unknown {
  if (typeof entry !== 'string') return entry;
  const [backend, variant] = entry.split(':', 2);
  return variant === undefined ? { backend } : { backend, variant };
}
