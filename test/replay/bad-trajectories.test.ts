/**
 * Bad trajectories through the real CLI processes: each kind gives its own exit code and one clear
 * stderr line, never a stack trace.
 */
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPLAY_FAILURES } from '../../experiments/replay/replay-error.ts';
import { renderTrajectory } from '../../experiments/replay/trajectory-set.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'sandbench-test-replay-bad-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const claude = renderTrajectory('claude-code', 0, 5).text;
const codex = renderTrajectory('codex', 0, 5).text;
const mini = renderTrajectory('mini-swe-agent', 0, 5).text;
const pi = renderTrajectory('pi-agent', 0, 5).text;

/** The codex rollout without the function_call of the first result: its output answers nothing. */
function orphanCodex(): string {
  const lines = codex.trimEnd().split('\n');
  const first = lines.findIndex((l) => JSON.parse(l).payload?.type === 'function_call');
  return `${lines.filter((_, i) => i !== first).join('\n')}\n`;
}

const CASES: { name: string; agent: string; file: () => string; category: keyof typeof REPLAY_FAILURES; afterStep?: string }[] = [
  { name: 'truncated JSONL (claude-code)', agent: 'claude-code', file: () => write('truncated.jsonl', claude.slice(0, Math.floor(claude.length * 0.6))), category: 'malformed_json' },
  { name: 'truncated JSON (mini-swe-agent)', agent: 'mini-swe-agent', file: () => write('truncated.json', mini.slice(0, mini.length - 40)), category: 'malformed_json' },
  { name: 'tool result without its call (codex)', agent: 'codex', file: () => write('orphan.jsonl', orphanCodex()), category: 'orphan_tool_result' },
  {
    name: 'unknown schema version (mini-swe-agent trajectory_format)',
    agent: 'mini-swe-agent',
    file: () => write('version.json', mini.replace('"mini-swe-agent-1.1"', '"mini-swe-agent-9.0"')),
    category: 'unsupported_version',
  },
  { name: 'unknown agent version (claude-code 9.x)', agent: 'claude-code', file: () => write('version.jsonl', claude.replaceAll('"version":"2.1.220"', '"version":"9.0.1"')), category: 'unsupported_version' },
  { name: 'wrong shape (pi-agent turn_end without toolResults)', agent: 'pi-agent', file: () => write('shape.jsonl', pi.replaceAll('"toolResults":', '"results":')), category: 'schema_mismatch' },
  { name: 'missing file', agent: 'codex', file: () => join(dir, 'does-not-exist.jsonl'), category: 'unreadable_trajectory' },
  { name: 'step beyond the trajectory', agent: 'codex', file: () => write('ok.jsonl', codex), category: 'boundary_out_of_range', afterStep: '3' },
];

// Every kind through the lean entry; the three kinds the issue names also through the full CLI
// (each spawn pays tsx start-up, so the second pass is kept short).
const REQUIRED = new Set(['truncated JSONL (claude-code)', 'tool result without its call (codex)', 'unknown schema version (mini-swe-agent trajectory_format)']);

describe.each([
  ['lean entry', 'bin/sandbench-replay.mjs', CASES],
  ['full CLI', 'bin/sandbench.mjs', CASES.filter((c) => REQUIRED.has(c.name))],
])('sandbench replay prepare (%s) refuses bad trajectories', (_label, entry, cases) => {
  it.each(cases)('$name → $category', async ({ agent, file, category, afterStep }) => {
    const out = join(dir, `out-${category}`);
    const result = await execa('node', [join(ROOT, entry), 'replay', 'prepare', '--agent', agent, '--trajectory', file(), '--after-step', afterStep ?? '1', '--out', out], { reject: false });
    expect(result.exitCode).toBe(REPLAY_FAILURES[category]);
    const stderr = result.stderr.trim();
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(new RegExp(`^sandbench: ${category}: `));
    expect(stderr).not.toMatch(/\n\s+at |internal error/);
    expect(result.stdout).toBe('');
  });
});

it('gives every failure category a distinct exit code outside 0-2', () => {
  const codes = Object.values(REPLAY_FAILURES);
  expect(new Set(codes).size).toBe(codes.length);
  for (const code of codes) expect(code).toBeGreaterThan(2);
});
