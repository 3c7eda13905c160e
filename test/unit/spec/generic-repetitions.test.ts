/**
 * A kind that repeats with a field of its own (rollout.blocks, density.batches) refuses a generic
 * trials/warmups it would ignore, from the YAML and from the command line, naming the field to set.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSpec, SPEC_KINDS } from '../../../experiments/registry.ts';
import { loadSpec } from '../../../harness/spec/load-spec.ts';
import { applyOverrides } from '../../../harness/spec/resolve-spec.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const rollout = { name: 'r', experiment: 'rollout', arms: ['host'] };
const density = { name: 'd', experiment: 'density', arms: ['host'] };

describe('generic repetitions a kind would ignore', () => {
  it('refuses trials on a rollout spec file, naming the file, the field and rollout.blocks', () => {
    const dir = tempDir('generic-repetitions');
    const file = join(dir, 'rollout.yaml');
    writeFileSync(file, 'name: r\nexperiment: rollout\narms: [host]\ntrials: 30\n');
    expect(() => loadSpec(file, SPEC_KINDS)).toThrow(new RegExp(`${file.replace(/[.]/g, '\\.')}.*trials: the rollout kind does not repeat with trials.*set rollout\\.blocks`, 's'));
  });

  it('refuses warmups on density, naming density.batches', () => {
    expect(() => parseSpec({ ...density, warmups: 3 }, 'd.yaml')).toThrow(/d\.yaml.*warmups: the density kind does not repeat with warmups.*density\.batches/s);
  });

  it('accepts the neutral values and an absent field (the default is not the author\'s)', () => {
    expect(parseSpec({ ...rollout, trials: 1, warmups: 0 }).experiment).toBe('rollout');
    // left out, they are the neutral values the kind runs, not the generic 30 and 3 it would ignore
    expect(parseSpec(rollout)).toMatchObject({ trials: 1, warmups: 0 });
  });

  it('leaves kinds that repeat with trials alone', () => {
    expect(parseSpec({ name: 's', experiment: 'shell-ready', arms: ['host'], trials: 7 }).trials).toBe(7);
  });

  it('refuses --trials on the command line for such a kind', () => {
    const spec = parseSpec(rollout);
    expect(() => applyOverrides('r.yaml', spec, { trials: 5 }, SPEC_KINDS)).toThrow(/--trials: the rollout kind does not repeat with trials.*rollout\.blocks/);
    expect(applyOverrides('r.yaml', spec, { seed: 3 }, SPEC_KINDS).seed).toBe(3);
  });
});
