/**
 * Arms carry a label of their own (issue 30): two configurations of one backend are two arms of one
 * run, default labels name the backend, the runtime and the variant, and records written before
 * labels still read as backend[:variant].
 */
import { describe, expect, it } from 'vitest';
import { SPEC_KINDS } from '../../../experiments/registry.ts';
import { parseSpecText } from '../../../harness/spec/load-spec.ts';
import { applyOverrides } from '../../../harness/spec/resolve-spec.ts';
import { armLabel, defaultArmLabel } from '../../../harness/spec/arm-label.ts';
import { buildPlan, specArms } from '../../../harness/plan/plan.ts';
import { ArmSchema } from '../../../harness/journal/trial-record.ts';

const spec = (arms: string) => parseSpecText('t.yaml', `name: t\nexperiment: command\narms: ${arms}\nwarmups: 0\ntrials: 2\nseed: 1\ntimeout: 10s\ntask:\n  argv: [/bin/true]\n`, SPEC_KINDS);

describe('arm labels', () => {
  it('two podman arms that differ only in runtime are two arms, named by their labels everywhere', () => {
    const loaded = spec('[{backend: podman, label: podman-crun, build: {runtime: /usr/bin/crun}}, {backend: podman, label: podman-runc}]');
    expect(specArms(loaded)).toEqual([{ backend: 'podman', variant: null, label: 'podman-crun' }, { backend: 'podman', variant: null, label: 'podman-runc' }]);
    const plan = buildPlan(loaded);
    expect(new Set(plan.trials.map((t) => armLabel(t.arm)))).toEqual(new Set(['podman-crun', 'podman-runc']));
    expect(plan.trials.filter((t) => t.trial_id.endsWith('-podman-crun'))).toHaveLength(2);
    // The label survives the re-validation every run does.
    expect(specArms(applyOverrides('t.yaml', loaded, {}, SPEC_KINDS))).toEqual(specArms(loaded));
  });

  it('default labels: backend, then the runtime when no variant names the arm; the variant as before', () => {
    expect(defaultArmLabel({ backend: 'podman', build: { runtime: '/usr/bin/crun' } })).toBe('podman-crun');
    expect(defaultArmLabel({ backend: 'podman', build: { runtime: '../data/runtimes/runsc-podman.sh' } })).toBe('podman-runsc-podman');
    expect(defaultArmLabel({ backend: 'podman', variant: 'runsc', build: { runtime: 'runsc' } })).toBeNull();
    expect(specArms(spec('[{backend: podman, build: {runtime: /usr/bin/crun}}, {backend: podman}, {backend: host, variant: x}]')).map(armLabel)).toEqual(['podman-crun', 'podman', 'host:x']);
  });

  it('the same label twice is refused with the fix; a label outside the pattern is refused naming the field', () => {
    expect(() => spec('[{backend: podman}, {backend: podman}]')).toThrow(/arm "podman" is listed twice \(give each a label of its own/);
    expect(() => spec('[{backend: podman, label: "Podman Crun"}]')).toThrow(/arms\.0\.label.*expected an arm label/s);
  });

  it('a record written before labels reads as backend[:variant]', () => {
    const old = ArmSchema.parse({ backend: 'podman', variant: 'runsc' });
    expect(armLabel(old)).toBe('podman:runsc');
    expect(armLabel(ArmSchema.parse({ backend: 'podman', variant: null, label: 'podman-runc' }))).toBe('podman-runc');
  });
});
