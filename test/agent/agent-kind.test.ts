/**
 * The agent kind's bad-input paths through the CLI: an unknown agent, a layer that fails to build.
 * Real CLIs on every backend: agent-ci.test.ts (the CI spec) and agent-mini.yaml.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentLayerError, ensureLayer } from '../../experiments/agent/layers.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

const CLI = join(PROJECT_ROOT, 'bin', 'sandbench.mjs');
const dir = mkdtempSync(join(tmpdir(), 'sandbench-agent-kind-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function spec(name: string, arms: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `name: ${name}\nexperiment: agent\narms: ${arms}\nwarmups: 0\ntrials: 1\nseed: 3\ntimeout: 120s\nagent:\n  init_deadline: 60s\n`);
  return path;
}

describe('agent kind', () => {
  it('an unknown agent is a spec error naming the arm', async () => {
    const result = await execa('node', [CLI, 'run', spec('agent-bad', '[{ backend: host, variant: kodex }]'), '--out', join(dir, 'bad')], { reject: false, all: true });
    expect(result.exitCode).toBe(2);
    expect(result.all).toMatch(/arms\[0\]\.variant: unknown agent "kodex"; expected one of codex, claude, opencode, pi, mini-swe-agent/);
    expect(existsSync(join(dir, 'bad', 'journal.jsonl'))).toBe(false);
  }, 60_000);

  it('a layer that fails to build is an error naming agent and version', async () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const bogus = { name: 'codex', version: '0.0.0-no-such-version', protocol: 'openai-responses', needs: '' } as const;
    const error = await ensureLayer(home, bogus, () => undefined).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentLayerError);
    expect(String(error)).toMatch(/agent layer codex 0\.0\.0-no-such-version failed to build .*npm pack @openai\/codex@0\.0\.0-no-such-version-linux-x64 failed/);
    expect(existsSync(join(home, 'agents', 'codex-0.0.0-no-such-version'))).toBe(false);
  }, 120_000);
});
