/**
 * The CI agent spec end to end through the CLI (experiments/specs/agent-ci.yaml as shipped): real
 * codex and opencode on host, staged, podman and docker, and codex in a qemu microvm, each once against
 * the model service. Every trial must be valid (exit 0, exactly the scripted turns in the model
 * journal, the candidate file's bytes); sandboxed arms reach the service through the in-sandbox
 * forwarder, timed apart. Layers come from the cache (scripts/setup.sh builds them; the first run
 * here would build them from npm). With SANDBENCH_REQUIRE_BACKENDS set (CI) an unavailable backend
 * fails the run (--require-all); elsewhere its arms are skipped by the run itself.
 * Measured here (2 cores, cached layers and layer disk): 191 s at load 21-27, 497 s at load 25-55;
 * the TCG microvm is most of it (codex's first request 78 s after spawn at load ~25).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

const CLI = join(PROJECT_ROOT, 'bin', 'sandbench.mjs');
const SPEC = join(PROJECT_ROOT, 'experiments', 'specs', 'agent-ci.yaml');
const required = Boolean(process.env.SANDBENCH_REQUIRE_BACKENDS);
const dir = mkdtempSync(join(tmpdir(), 'sandbench-agent-ci-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const planned = ['host:codex', 'staged:codex', 'podman:codex', 'docker:codex', 'host:opencode', 'staged:opencode', 'podman:opencode', 'docker:opencode', 'qemu-microvm:codex'];

describe('agent-ci.yaml', () => {
  it('codex and opencode complete the scripted loop in every backend, and codex in a microvm', async () => {
    const out = join(dir, 'bundle');
    const result = await execa('node', [CLI, 'run', SPEC, '--out', out, ...(required ? ['--require-all'] : [])], { reject: false, all: true });
    expect(result.exitCode, result.all).toBe(0);
    const records = readFileSync(join(out, 'journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const arms = records.map((r) => `${r.arm.backend}:${r.arm.variant}`);
    if (required) expect(arms.sort()).toEqual([...planned].sort());
    else expect(arms).toEqual(expect.arrayContaining(['host:codex', 'host:opencode']));
    const journal = readFileSync(join(out, 'model-journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    for (const r of records) {
      const arm = `${r.arm.backend}:${r.arm.variant}`;
      expect(`${arm} ${r.outcome}`, r.notes.join('; ')).toBe(`${arm} ok`);
      expect(r.validity).toEqual({ exit_zero: 'pass', scripted_turns: 'pass', candidate_content: 'pass' });
      expect(r.metrics.first_request_ms).toBeGreaterThan(0);
      expect(r.metrics.completion_ms).toBeGreaterThan(r.metrics.first_request_ms);
      expect(r.metrics.model_requests, arm).toBe(2);
      // Namespaces and containers reach the service through the forwarder (a separate mark); the
      // host goes direct, the VM through slirp's guestfwd.
      if (['staged', 'podman', 'docker'].includes(r.arm.backend)) expect(r.metrics.forwarder_ready_ms, arm).toBeGreaterThan(0);
      else expect(r.metrics.forwarder_ready_ms, arm).toBeUndefined();
      // The journal is the trial's complete model traffic: turn 0 (the tool call), turn 1 (the final text).
      const mine = journal.filter((e) => e.attempt === r.facts.model_attempt);
      const endpoint = r.arm.variant === 'codex' ? 'responses' : 'chat';
      expect(mine.map((e) => `${e.endpoint}:${e.turn}:${e.status}`), arm).toEqual([`${endpoint}:0:ok`, `${endpoint}:1:ok`]);
    }
    const summary = readFileSync(join(out, 'agent-summary.csv'), 'utf8');
    expect(summary).toMatch(/^arm,backend,agent,/);
    expect(summary).toContain('host:codex,host,codex,,1,1,0,0,');
    expect(summary).toContain('host:opencode,host,opencode,,1,1,0,0,');
  }, 900_000);
});
