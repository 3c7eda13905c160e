/** Which arms an interleaved gate judges when the command line names fewer than two (reports/gate/default-arms.ts). */
import { describe, expect, it } from 'vitest';
import { analyzedBundle } from '../../cli/kinds.ts';
import { interleavedArms } from '../../reports/gate/default-arms.ts';
import { UserError } from '../../harness/errors.ts';
import { makeSyntheticBundle } from '../reports/synthetic-bundle.ts';
import { runCli } from '../reports/run-cli.ts';

const arms = (names: string[]) => names.map((n) => { const [backend, variant] = n.split(':'); return { backend: backend!, variant, medians: { completion_ms: 10 } }; });

describe('interleavedArms', () => {
  const three = makeSyntheticBundle({ arms: arms(['staged:old', 'staged:new', 'podman']), blocks: 8 });
  const declared = makeSyntheticBundle({ arms: arms(['staged:old', 'staged:new', 'podman']), blocks: 8, compare: [{ candidate: 'staged:new', control: 'staged:old', metric: 'completion_ms' }] });
  const two = makeSyntheticBundle({ arms: arms(['staged:old', 'staged:new']), blocks: 8 });

  it('both named: as given, no note', async () => {
    expect(interleavedArms(await analyzedBundle(three), 'podman', 'staged:new')).toEqual({ baseline: 'podman', candidate: 'staged:new', note: null });
  });

  it('only the candidate: the compare control, else the first arm, and the note says which', async () => {
    expect(interleavedArms(await analyzedBundle(declared), undefined, 'staged:new')).toMatchObject({ baseline: 'staged:old', note: "baseline arm staged:old: the spec's compare control for staged:new" });
    const fallback = interleavedArms(await analyzedBundle(three), undefined, 'podman');
    expect(fallback.baseline).toBe('staged:old');
    expect(fallback.note).toContain('the spec declares no compare for podman, so the first arm of the run is the control');
  });

  it('the candidate being the first arm, or an ambiguous baseline, is a UserError listing the arms', async () => {
    const bundle = await analyzedBundle(three);
    expect(() => interleavedArms(bundle, undefined, 'staged:old')).toThrow(UserError);
    expect(() => interleavedArms(bundle, 'staged:old', undefined)).toThrow(/which arm is the candidate\? name it with --candidate-arm \(arms: staged:old, staged:new, podman\)/);
    expect(() => interleavedArms(bundle, undefined, undefined)).toThrow(/name the two sides with --baseline-arm and --candidate-arm/);
  });

  it('neither named: the one compare pair, or the two arms of a two-arm run (first = control)', async () => {
    expect(interleavedArms(await analyzedBundle(declared), undefined, undefined)).toMatchObject({ baseline: 'staged:old', candidate: 'staged:new' });
    const defaulted = interleavedArms(await analyzedBundle(two), undefined, undefined);
    expect(defaulted).toMatchObject({ baseline: 'staged:old', candidate: 'staged:new' });
    expect(defaulted.note).toMatch(/the first arm of the run: the spec declares no compare/);
    expect(interleavedArms(await analyzedBundle(two), 'staged:old', undefined).candidate).toBe('staged:new');
  });

  it('sandbench gate <one bundle> says the default in its output', async () => {
    const result = await runCli(['gate', two, '--metric', 'completion_ms']);
    expect(result.stdout).toContain('warning: defaulted: baseline arm staged:old (the first arm of the run');
    expect(result.stdout).toMatch(/staged:new vs staged:old/);
  });
});
