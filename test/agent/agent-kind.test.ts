/**
 * The agent kind end to end through the CLI: real codex on host and staged against the model
 * service (layers cached under $SANDBENCH_HOME/agents; the first run builds them from npm), and
 * the bad-input paths: an unknown agent, a layer that fails to build.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  it('codex completes the scripted loop on host and staged; the bundle carries the model journal and the agent table', async () => {
    const out = join(dir, 'bundle');
    const result = await execa('node', [CLI, 'run', spec('agent-it', '[{ backend: host, variant: codex }, { backend: staged, variant: codex }]'), '--out', out], { reject: false, all: true });
    expect(result.exitCode, result.all).toBe(0);
    const records = readFileSync(join(out, 'journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(records.map((r) => `${r.arm.backend}:${r.outcome}`).sort()).toEqual(['host:ok', 'staged:ok']);
    for (const r of records) {
      expect(r.validity).toEqual({ exit_zero: 'pass', scripted_turns: 'pass', candidate_content: 'pass' });
      expect(r.metrics.first_request_ms).toBeGreaterThan(0);
      expect(r.metrics.completion_ms).toBeGreaterThan(r.metrics.first_request_ms);
      expect(r.metrics.model_requests).toBe(2);
    }
    // Staged reaches the service through the in-sandbox forwarder, timed apart; host goes direct.
    expect(records.find((r) => r.arm.backend === 'staged').metrics.forwarder_ready_ms).toBeGreaterThan(0);
    expect(records.find((r) => r.arm.backend === 'host').metrics.forwarder_ready_ms).toBeUndefined();
    const journal = readFileSync(join(out, 'model-journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(journal.map((e) => `${e.endpoint}:${e.turn}:${e.status}`)).toEqual(['responses:0:ok', 'responses:1:ok', 'responses:0:ok', 'responses:1:ok']);
    const summary = readFileSync(join(out, 'agent-summary.csv'), 'utf8');
    expect(summary).toMatch(/^arm,backend,agent,/);
    expect(summary).toContain('host:codex,host,codex,,1,1,0,0,');
  }, 300_000);

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
