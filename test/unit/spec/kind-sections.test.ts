import { describe, expect, it } from 'vitest';
import { parseSpec, SPEC_KINDS } from '../../../experiments/registry.ts';
import { densitySection } from '../../../experiments/density/density-plan.ts';
import { applyOverrides } from '../../../harness/spec/resolve-spec.ts';

const base = { name: 'k', arms: [{ backend: 'host' }], warmups: 0, trials: 1, seed: 1, timeout: '30s' };

describe('kinds own their spec section', () => {
  it('stores the kind section parsed with defaults, so resolved-spec.json says what ran', () => {
    const spec = parseSpec({ ...base, experiment: 'density' });
    expect(spec.density).toEqual(densitySection(spec));
    expect(densitySection(spec).batches).toBe(5);
    expect(densitySection(spec).ready_timeout).toBe(120_000);
  });

  it('applies a kind override through the kind and keeps parsed units (no ms read as seconds)', () => {
    const spec = parseSpec({ ...base, experiment: 'density', density: { ready_timeout: '90s' } });
    const overridden = applyOverrides('d.yaml', spec, { concurrency: [3], batches: 2, seed: 4 }, SPEC_KINDS);
    expect(densitySection(overridden)).toMatchObject({ concurrency: [3], batches: 2, ready_timeout: 90_000 });
    expect(overridden.timeout).toBe(30_000);
    expect(overridden.seed).toBe(4);
  });

  it('refuses a kind override the kind does not have, naming the option', () => {
    const spec = parseSpec({ ...base, experiment: 'shell-ready' });
    expect(() => applyOverrides('s.yaml', spec, { concurrency: [2] }, SPEC_KINDS)).toThrow(/s\.yaml \(with command-line overrides\): --concurrency: the shell-ready kind has no such setting/);
  });

  it('runs the kind\'s cross-field rules (command needs task.argv)', () => {
    expect(() => parseSpec({ ...base, experiment: 'command' }, 'c.yaml')).toThrow(/c\.yaml: task\.argv: the command kind needs task\.argv/);
    expect(parseSpec({ ...base, experiment: 'command', task: { argv: ['true'] } }).task.argv).toEqual(['true']);
  });

  it('does not treat Object.prototype names as kinds', () => {
    expect(() => parseSpec({ ...base, experiment: 'constructor' })).toThrow(/"constructor" is not a kind of this build/);
  });
});
