import { describe, expect, it } from 'vitest';
import { parseAgentArm } from '../../experiments/agent/agent-arms.ts';
import { rewriteTargets, validateExtras } from '../../executors/sandbox-extras.ts';

describe('agent arms', () => {
  it('reads the agent and the VM CPU model from the variant', () => {
    expect(parseAgentArm({ backend: 'host', variant: 'codex' })).toMatchObject({ agent: { name: 'codex', version: '0.169.0' }, cpuModel: null });
    expect(parseAgentArm({ backend: 'qemu-microvm', variant: 'claude@cpu-max' })).toMatchObject({ agent: { name: 'claude' }, cpuModel: 'max' });
    expect(parseAgentArm({ backend: 'docker', variant: 'mini-swe-agent' })).toMatchObject({ agent: { name: 'mini-swe-agent', version: '2.4.6', protocol: 'openai-chat' }, cpuModel: null });
  });

  it('names the arm and the fix for bad variants', () => {
    expect(() => parseAgentArm({ backend: 'host', variant: 'kodex' }, 2)).toThrow(/arms\[2\]\.variant: unknown agent "kodex"; expected one of codex, claude, opencode, pi, mini-swe-agent/);
    expect(() => parseAgentArm({ backend: 'host', variant: null }, 0)).toThrow(/needs the agent CLI as the arm's variant/);
    expect(() => parseAgentArm({ backend: 'staged', variant: 'claude@cpu-max' }, 1)).toThrow(/applies to VM backends only/);
    expect(() => parseAgentArm({ backend: 'qemu-q35', variant: 'claude@fast' }, 1)).toThrow(/not a CPU model option/);
  });
});

describe('sandbox extras', () => {
  const mounts = [
    { source: '/cache/agents/codex', target: '/run/sandbench/agent', contentKey: 'a' },
    { source: '/scratch/support', target: '/run/sandbench/agent-support', contentKey: 'b' },
  ];
  it('the host backend maps mount targets to sources only at path boundaries', () => {
    expect(rewriteTargets('/run/sandbench/agent/bin/codex', mounts)).toBe('/cache/agents/codex/bin/codex');
    expect(rewriteTargets('/run/sandbench/agent-support/run.sh', mounts)).toBe('/scratch/support/run.sh');
    expect(rewriteTargets('--layer=/run/sandbench/agent', mounts)).toBe('--layer=/cache/agents/codex');
    expect(rewriteTargets('/run/sandbench/agentx', mounts)).toBe('/run/sandbench/agentx');
  });

  it('refuses mounts outside the mount root, duplicates and missing sources, naming them', () => {
    const task = (extra: object) => ({ argv: ['true'], env: {}, stdin: 'none' as const, ...extra });
    expect(() => validateExtras(task({ mounts: [{ source: '/tmp', target: '/opt/x', contentKey: 'k' }] }))).toThrow(/mount target "\/opt\/x" must be a normalized path below \/run\/sandbench\//);
    expect(() => validateExtras(task({ mounts: [{ source: '/no/such/dir', target: '/run/sandbench/x', contentKey: 'k' }] }))).toThrow(/mount source "\/no\/such\/dir" \(for \/run\/sandbench\/x\)/);
    expect(() => validateExtras(task({ mounts: [{ source: '/tmp', target: '/run/sandbench/x', contentKey: 'k' }, { source: '/tmp', target: '/run/sandbench/x', contentKey: 'k' }] }))).toThrow(/given twice/);
    expect(() => validateExtras(task({ service: { name: 'model', socketPath: '/tmp' } }))).toThrow(/is not a listening Unix socket/);
  });
});

describe('agent spec section', () => {
  it('keeps the init deadline in ms through command-line overrides (the resolved spec is parsed twice)', async () => {
    const { parseSpecText } = await import('../../harness/spec/load-spec.ts');
    const { applyOverrides } = await import('../../harness/spec/resolve-spec.ts');
    const { SPEC_KINDS } = await import('../../experiments/registry.ts');
    const { agentOptions } = await import('../../experiments/agent/agent-kind.ts');
    const spec = parseSpecText('a.yaml', 'name: a\nexperiment: agent\narms: [{ backend: host, variant: codex }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 60s\nagent: { init_deadline: 90s }\n', SPEC_KINDS);
    expect(agentOptions(spec).init_deadline).toBe(90_000);
    expect(agentOptions(applyOverrides('a.yaml', spec, { trials: 2 }, SPEC_KINDS)).init_deadline).toBe(90_000);
  });
});
