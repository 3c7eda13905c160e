/**
 * Synthetic journals for analysis tests and the analyze bench: a real seeded plan (harness/plan)
 * turned into trial records with lognormal timings, a shared per-block effect, and optional failures.
 */
import { buildPlan } from '../../../harness/plan/plan.ts';
import { createPrng } from '../../../harness/plan/prng.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../../harness/journal/trial-record.ts';
import type { ResolvedSpec } from '../../../harness/spec/resolve-spec.ts';
import { type SpecInput } from '../../../harness/spec/schema.ts';
import { parseSpec } from '../../../experiments/registry.ts';

export interface SyntheticOptions {
  runId?: string;
  spec?: Partial<SpecInput>;
  /** Median timing per arm label (ms). */
  medians?: Record<string, number>;
  /** Fraction of formal trials that time out (deterministic under the seed). */
  failureRate?: number;
  facts?: Record<string, unknown>;
}

export function syntheticResolved(options: SyntheticOptions = {}): ResolvedSpec {
  const spec = parseSpec({
    name: 'synthetic-shell-ready',
    experiment: 'shell-ready',
    arms: [{ backend: 'docker' }, { backend: 'staged' }],
    warmups: 3,
    trials: 60,
    seed: 20261006,
    timeout: '30s',
    controls: { cpus: '0,1' },
    ...options.spec,
  });
  return { run_id: options.runId ?? 'run-synthetic', spec_path: 'specs/synthetic.yaml', spec_sha256: 'sha256:0', overrides: {}, skipped_arms: [], spec };
}

export function syntheticRecords(resolved: ResolvedSpec, options: SyntheticOptions = {}): TrialRecord[] {
  const plan = buildPlan(resolved.spec);
  const prng = createPrng(resolved.spec.seed + 1);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float());
  const blockEffect = new Map<string, number>();
  return plan.trials.map((t): TrialRecord => {
    const label = t.arm.variant ? `${t.arm.backend}:${t.arm.variant}` : t.arm.backend;
    const key = `${t.warmup}:${t.block}`;
    if (!blockEffect.has(key)) blockEffect.set(key, 0.02 * gaussian());
    const base = options.medians?.[label] ?? 100;
    const ready = base * Math.exp(blockEffect.get(key)! + 0.05 * gaussian());
    const completion = ready + 5 * Math.exp(0.1 * gaussian());
    const failed = !t.warmup && prng.float() < (options.failureRate ?? 0);
    return {
      run_id: resolved.run_id,
      schema_version: TRIAL_SCHEMA_VERSION,
      experiment: resolved.spec.experiment,
      arm: t.arm,
      block: t.block,
      position: t.position,
      trial_id: t.trial_id,
      warmup: t.warmup,
      seed: t.seed,
      outcome: failed ? 'failed' : 'ok',
      failure_category: failed ? 'timeout' : null,
      exit_code: failed ? null : 0,
      t_spawn_ns: null,
      ready_ms: failed ? null : ready,
      result_ms: null,
      completion_ms: failed ? null : completion,
      metrics: failed ? {} : { ready_ms: ready, completion_ms: completion },
      validity: failed ? {} : { markers: 'pass' },
      notes: [],
      facts: options.facts ?? {},
    };
  });
}
