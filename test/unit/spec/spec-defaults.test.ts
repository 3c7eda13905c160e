/** Issue 35 (2): a spec of name, experiment and arms runs with documented, recorded defaults. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSpec, SPEC_KINDS } from '../../../experiments/registry.ts';
import { loadSpec, parseSpecDocument } from '../../../harness/spec/load-spec.ts';
import { SPEC_DEFAULTS } from '../../../harness/spec/spec-defaults.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const minimal = { name: 'x', experiment: 'shell-ready', arms: ['host', 'staged'] };

describe('spec defaults', () => {
  it('fills warmups, trials, timeout with the documented values and draws a seed', () => {
    const spec = parseSpec(minimal);
    expect(spec).toMatchObject({ warmups: SPEC_DEFAULTS.warmups, trials: SPEC_DEFAULTS.trials, timeout: 60_000 });
    expect(SPEC_DEFAULTS).toMatchObject({ warmups: 3, trials: 30, timeout: '60s' });
    expect(Number.isInteger(spec.seed) && spec.seed >= 0).toBe(true);
    // A random seed: 8 draws out of 2^31 are not all equal unless the default is a constant.
    expect(new Set(Array.from({ length: 8 }, () => parseSpec(minimal).seed)).size).toBeGreaterThan(1);
  });

  it('a written value wins over every default', () => {
    expect(parseSpec({ ...minimal, warmups: 0, trials: 5, seed: 7, timeout: '2s' })).toMatchObject({ warmups: 0, trials: 5, seed: 7, timeout: 2000 });
  });

  it('arms: [host, staged] is shorthand for backend objects; host:v1 adds the variant', () => {
    expect(parseSpec(minimal).arms).toEqual([{ backend: 'host' }, { backend: 'staged' }]);
    expect(parseSpec({ ...minimal, arms: ['host:v1', { backend: 'staged' }] }).arms).toEqual([{ backend: 'host', variant: 'v1' }, { backend: 'staged' }]);
    expect(() => parseSpec({ ...minimal, arms: ['Host'] }, 'a.yaml')).toThrow(/a\.yaml: arms\.0\.backend: expected a backend name/);
  });

  it('loadSpec lists the fields the file left to the defaults', () => {
    const file = join(tempDir('sandbench-spec-defaults-'), 'x.yaml');
    writeFileSync(file, 'name: x\nexperiment: shell-ready\narms: [host, staged]\ntrials: 4\n');
    expect(loadSpec(file, SPEC_KINDS).defaulted).toEqual(['warmups', 'seed', 'timeout']);
  });

  it('a field left out says it is missing, also for a union-typed field', () => {
    expect(() => parseSpecDocument('m.yaml', { experiment: 'shell-ready', arms: ['host'] }, SPEC_KINDS)).toThrow(/m\.yaml: name: missing required field/);
    expect(() => parseSpecDocument('m.yaml', { name: 'x', experiment: 'shell-ready', arms: [{}] }, SPEC_KINDS)).toThrow(/arms\.0\.backend: missing required field/);
    // timeout: null is written (not missing): the duration's own message
    expect(() => parseSpecDocument('m.yaml', { ...minimal, timeout: null }, SPEC_KINDS)).toThrow(/timeout: (?!missing)/);
  });
});
