/**
 * Small synthetic bundles for the report tests: a real plan (harness/plan), a real journal written
 * with JournalWriter, resolved-spec.json and environment.json as `run` writes them. Values are
 * lognormal around a per-arm median from a seeded PRNG, so every test bundle is reproducible.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dirs.ts';
import { buildPlan, serializePlan } from '../../harness/plan/plan.ts';
import { createPrng, seedFromString } from '../../harness/plan/prng.ts';
import { JournalWriter } from '../../harness/journal/journal.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { normalQuantile } from '../../harness/stats/index.ts';

export interface SyntheticArm {
  /** An executor backend, or a kind's own arm backend (lazy-image: full/lazy; replay: the subject). */
  backend: string;
  variant?: string;
  /** Median of each metric for this arm. */
  medians: Record<string, number>;
}

export interface SyntheticOptions {
  name?: string;
  experiment?: string;
  arms: SyntheticArm[];
  blocks: number;
  warmups?: number;
  seed?: number;
  /** Log-scale spread of the lognormal noise. */
  sigma?: number;
  /** Multiply every value of these arms (e.g. {staged: 1.2} for a 20% slower candidate). */
  slowdown?: Record<string, number>;
  /** Formal trial ids (e.g. 'b0003-staged') that fail as task_failed. */
  failTrials?: string[];
  environment?: Record<string, unknown>;
  compare?: { candidate: string; control: string; metric: string }[];
  runId?: string;
  dir?: string;
}

/** Same layout as harness/provenance/environment.ts writes (host, backends, image, fingerprint). */
export function syntheticEnvironment(overrides: { kernel?: string; imageDigest?: string; dockerVersion?: string } = {}) {
  const kernel = overrides.kernel ?? '6.1.0-test';
  const digest = overrides.imageDigest ?? `sha256:7ac334${'a'.repeat(58)}`;
  const versions: Record<string, string> = { host: 'linux', staged: 'bubblewrap 0.8.0', docker: overrides.dockerVersion ?? 'docker 20.10.24', podman: 'podman 4.3.1' };
  return {
    schema_version: 1,
    host: { kernel, cpu_model: 'Synthetic CPU 9000', cores: 2, memory_mib: 7900, cgroup_version: 'v1' },
    accelerator: 'tcg',
    harness: { commit: 'abc123', dirty: false, node: 'v20.19.0' },
    image: { digest, suite: 'bookworm', packages: ['python3', 'git', 'busybox', 'ca-certificates'], mirror: 'http://deb.debian.org/debian', source_date_epoch: 1761955200 },
    backends: Object.fromEntries(Object.entries(versions).map(([b, v]) => [b, { available: true, version: v, details: {}, image_digest: digest, image: null }])),
    fingerprint: { cpu_model: 'Synthetic CPU 9000', kernel, cores: 2, image_digest: digest, backend_versions: versions, accelerator: 'tcg' },
  };
}

export const DEFAULT_ENVIRONMENT = syntheticEnvironment();

// Temp bundles live as long as the test file that made them, under one parent: what a command
// writes beside a bundle (compare's default `<candidate>-vs-<baseline>`) goes with them.
let parent: string | null = null;

export function makeSyntheticBundle(options: SyntheticOptions): string {
  parent ??= tempDir('sandbench-report-bundles-');
  const dir = options.dir ?? mkdtempSync(join(parent, 'sandbench-report-test-'));
  mkdirSync(dir, { recursive: true });
  const runId = options.runId ?? `synthetic-${options.seed ?? 1}`;
  const spec = {
    name: options.name ?? 'synthetic',
    experiment: options.experiment ?? 'command',
    arms: options.arms.map((a) => (a.variant ? { backend: a.backend, variant: a.variant } : { backend: a.backend })),
    warmups: options.warmups ?? 1,
    trials: options.blocks,
    seed: options.seed ?? 1,
    timeout: 30_000,
    controls: { cpus: '0,1', swap: 0 },
    image: { suite: 'bookworm', packages: ['python3', 'git', 'busybox', 'ca-certificates'], source_date_epoch: 1761955200 },
    task: { env: {}, argv: ['true'] },
    ...(options.compare ? { compare: options.compare } : {}),
    underpowered_fraction: 0.5,
    resamples: 1000,
  };
  writeFileSync(join(dir, 'resolved-spec.json'), `${JSON.stringify({ run_id: runId, spec_path: 'synthetic.yaml', spec_sha256: 'sha256:0', overrides: {}, spec }, null, 2)}\n`);
  const plan = buildPlan(spec as Parameters<typeof buildPlan>[0]);
  writeFileSync(join(dir, 'plan.json'), serializePlan(plan));
  writeFileSync(join(dir, 'environment.json'), `${JSON.stringify(options.environment ?? DEFAULT_ENVIRONMENT, null, 2)}\n`);
  // Hashed seed: nearby integer seeds of xoroshiro start with correlated outputs.
  const prng = createPrng(seedFromString(`synthetic-values:${options.seed ?? 1}`));
  const sigma = options.sigma ?? 0.05;
  const failing = new Set(options.failTrials ?? []);
  const journal = new JournalWriter(join(dir, 'journal.jsonl'));
  for (const planned of plan.trials) {
    const label = planned.arm.variant ? `${planned.arm.backend}:${planned.arm.variant}` : planned.arm.backend;
    const arm = options.arms.find((a) => (a.variant ? `${a.backend}:${a.variant}` : a.backend) === label)!;
    const factor = options.slowdown?.[label] ?? 1;
    const metrics: Record<string, number> = {};
    for (const [metric, median] of Object.entries(arm.medians)) {
      const z = normalQuantile(Math.min(0.999999, Math.max(1e-6, prng.float())));
      metrics[metric] = median * factor * Math.exp(sigma * z);
    }
    const failed = !planned.warmup && failing.has(planned.trial_id);
    const record: TrialRecord = {
      run_id: runId,
      schema_version: 1,
      experiment: spec.experiment,
      arm: planned.arm,
      block: planned.block,
      position: planned.position,
      trial_id: planned.trial_id,
      warmup: planned.warmup,
      seed: planned.seed,
      outcome: failed ? 'failed' : 'ok',
      failure_category: failed ? 'task_failed' : null,
      exit_code: failed ? 1 : 0,
      t_spawn_ns: '0',
      ready_ms: failed ? null : (metrics.ready_ms ?? null),
      result_ms: null,
      completion_ms: failed ? null : (metrics.completion_ms ?? null),
      metrics: failed ? {} : metrics,
      validity: { markers: failed ? 'fail' : 'pass' },
      notes: [],
      facts: {},
    };
    journal.append(record);
  }
  journal.close();
  return dir;
}
