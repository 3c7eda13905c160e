/**
 * Input bounds (harness/plan/plan-bounds.ts): every field a plan or a trial expands, set absurdly
 * high, is refused by the loader before any plan exists — with the field, the expanded size and the
 * limit named — and a spec's `limits:` raises a limit on purpose. The CLI half checks `plan` and
 * `run` exit 2 on `trials: 1e12` without materializing anything (they used to grow to 3.3 GB).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSpec, SPEC_KINDS } from '../../../experiments/registry.ts';
import { UserError } from '../../../harness/errors.ts';
import { DEFAULT_LIMITS } from '../../../harness/plan/plan-bounds.ts';
import { applyOverrides } from '../../../harness/spec/resolve-spec.ts';
import { sandbench } from '../../support/cli.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const base = { name: 'bounds', warmups: 0, trials: 1, seed: 1, timeout: '10s' };
const host = [{ backend: 'host' }];
const hostStaged = [{ backend: 'host' }, { backend: 'staged' }];

/** [case, spec document, field the error must name, limit it must name]. */
const ABSURD: [string, Record<string, unknown>, string, string][] = [
  ['trials', { ...base, experiment: 'shell-ready', arms: host, trials: 1e12 }, 'trials', 'planned_trials'],
  ['warmups', { ...base, experiment: 'shell-ready', arms: host, warmups: 1e12 }, 'warmups', 'planned_trials'],
  ['resamples', { ...base, experiment: 'shell-ready', arms: host, resamples: 1e12 }, 'resamples', 'resamples'],
  ['density batches', { ...base, experiment: 'density', arms: host, density: { batches: 1e9 } }, 'density.batches', 'planned_trials'],
  ['density concurrency', { ...base, experiment: 'density', arms: host, density: { concurrency: [1, 1e6], batches: 1 } }, 'density.concurrency', 'concurrency'],
  ['density capacity search', { ...base, experiment: 'density', arms: host, density: { concurrency: [1], batches: 1, capacity_search: { min: 1, max: 1e9 } } }, 'density.capacity_search.max', 'concurrency'],
  ['rollout attempts', { ...base, experiment: 'rollout', arms: hostStaged, rollout: { attempts: 1e12 } }, 'rollout.attempts', 'planned_trials'],
  ['rollout attempts_by_backend', { ...base, experiment: 'rollout', arms: hostStaged, rollout: { attempts: 4, attempts_by_backend: { staged: 1e9 } } }, 'rollout.attempts_by_backend.staged', 'planned_trials'],
  ['rollout blocks', { ...base, experiment: 'rollout', arms: hostStaged, rollout: { attempts: 4, blocks: 1e12 } }, 'rollout.blocks', 'planned_trials'],
  ['rollout warmup_blocks', { ...base, experiment: 'rollout', arms: hostStaged, rollout: { attempts: 4, warmup_blocks: 1e12 } }, 'rollout.warmup_blocks', 'planned_trials'],
  ['replay trajectories', { ...base, experiment: 'replay', arms: host, trials: 3, replay: { trajectories: 1e12 } }, 'replay.trajectories', 'planned_trials'],
  ['replay repetitions', { ...base, experiment: 'replay', arms: host, trials: 3, replay: { repetitions: 1e9 } }, 'replay.repetitions', 'planned_trials'],
  ['lazy rounds', { ...base, experiment: 'lazy-image', arms: [{ backend: 'staged', variant: 'lazy' }], lazy: { rounds: 1e12 } }, 'lazy.rounds', 'planned_trials'],
  ['lazy warmup rounds', { ...base, experiment: 'lazy-image', arms: [{ backend: 'staged', variant: 'lazy' }], lazy: { warmup_rounds: 1e12 } }, 'lazy.warmup_rounds', 'planned_trials'],
  ['checkpoint trials × children', { ...base, experiment: 'checkpoint', arms: host, trials: 40_000, checkpoint: { children: [1, 4, 8] } }, 'trials + warmups', 'planned_trials'],
];

function refusal(document: unknown): { error: unknown; ms: number } {
  const started = performance.now();
  try {
    parseSpec(document, 'bounds.yaml');
  } catch (error) {
    return { error, ms: performance.now() - started };
  }
  return { error: undefined, ms: performance.now() - started };
}

describe('plan bounds: absurd sizes are refused before any plan exists', () => {
  for (const [name, document, field, limit] of ABSURD) {
    it(`${name}: names ${field}, the size and limits.${limit}, in well under 1 s`, () => {
      const { error, ms } = refusal(document);
      expect(error).toBeInstanceOf(UserError);
      const message = (error as UserError).message;
      expect((error as UserError).exitCode).toBe(2);
      expect(message).toContain(`bounds.yaml: ${field}: expands to `);
      expect(message).toContain(`limits.${limit}`);
      expect(message).toContain(DEFAULT_LIMITS[limit as keyof typeof DEFAULT_LIMITS].toLocaleString('en-US'));
      // A materialized plan of this size takes minutes and gigabytes; counting takes microseconds.
      expect(ms).toBeLessThan(1000);
    });
  }

  it('accepts every default and the shipped sizes just under a limit', () => {
    expect(() => parseSpec({ ...base, experiment: 'shell-ready', arms: hostStaged, trials: DEFAULT_LIMITS.planned_trials / 2 })).not.toThrow();
    expect(() => parseSpec({ ...base, experiment: 'density', arms: host, density: { concurrency: [DEFAULT_LIMITS.concurrency] } })).not.toThrow();
  });

  it('limits: raises a limit on purpose, and a limit key that does not exist is a typo', () => {
    const big = { ...base, experiment: 'shell-ready', arms: hostStaged, trials: 100_000 };
    expect(() => parseSpec(big)).toThrow(/trials: expands to 200,000 planned trials \(trials 100,000 × arms 2\), over the limit of 100,000/);
    expect(() => parseSpec({ ...big, limits: { planned_trials: 200_000 } })).not.toThrow();
    expect(() => parseSpec({ ...big, limits: { planned_trials: 200_000, trials: 5 } })).toThrow(/limits: unknown key "trials"/);
  });

  it('a command-line override is bounded too (--trials, --batches)', () => {
    const shellReady = parseSpec({ ...base, experiment: 'shell-ready', arms: host });
    expect(() => applyOverrides('s.yaml', shellReady, { trials: 1e12 }, SPEC_KINDS)).toThrow(/s\.yaml \(with command-line overrides\): trials: expands to 1\.0e\+12 planned trials/);
    const spec = parseSpec({ ...base, experiment: 'density', arms: host, density: { batches: 1 } });
    expect(() => applyOverrides('d.yaml', spec, { batches: 1e9 }, SPEC_KINDS)).toThrow(/density\.batches: expands to/);
  });
});

describe('plan and run refuse trials: 1e12 with exit 2 and no stack trace', () => {
  const dir = tempDir('sb-bounds-');
  const specPath = join(dir, 'huge.yaml');
  writeFileSync(specPath, 'name: huge\nexperiment: shell-ready\narms:\n  - backend: host\nwarmups: 0\ntrials: 1e12\nseed: 1\ntimeout: 10s\n');

  for (const command of ['plan', 'run'] as const) {
    it(command, async () => {
      const result = await sandbench([command, specPath, ...(command === 'run' ? ['--out', join(dir, 'bundle')] : [])]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${specPath}: trials: expands to 1.0e+12 planned trials`);
      expect(result.stderr).toContain('limits.planned_trials');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).toBe('');
    }, 60_000);
  }
});
