/**
 * OpenHands (openhands-sdk/-tools 1.34.0, experiments/specs/agent-openhands.yaml as shipped) on the
 * host and in staged (bubblewrap, no network but the model socket), once each, against the model
 * service: the SDK runner must call `terminal` with the fixture command, end on `finish`, leave
 * marker.txt holding the scripted bytes, and its joined events must be in the bundle. The layer comes
 * from the cache (scripts/setup.sh builds it; a first run here builds it from PyPI, ~2 min).
 * Serial (run alone after the parallel suite): each trial is ~12 s of CPU-bound Python import at
 * load ~1, and the file took 150 s at load 20-30 beside a TCG VM, past the parallel suite's budget;
 * alone in the serial config it took 28.5 s at load ~5 (2026-12-02).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const CLI = join(PROJECT_ROOT, 'bin', 'sandbench.mjs');
const SPEC = join(PROJECT_ROOT, 'experiments', 'specs', 'agent-openhands.yaml');
const required = Boolean(process.env.SANDBENCH_REQUIRE_BACKENDS);

describe('agent-openhands.yaml on host and staged', () => {
  it('OpenHands writes the candidate with terminal, ends on finish, and its events are kept', async () => {
    const out = join(tempDir('sandbench-openhands-'), 'bundle');
    const args = ['run', SPEC, '--arms', 'host:openhands,staged:openhands', '--trials', '1', '--out', out, ...(required ? ['--require-all'] : [])];
    const result = await execa('node', [CLI, ...args], { reject: false, all: true });
    expect(result.exitCode, result.all).toBe(0);
    const records = readFileSync(join(out, 'journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const arms = records.map((r) => `${r.arm.backend}:${r.arm.variant}`);
    expect(arms).toContain('host:openhands');
    if (required) expect(arms.sort()).toEqual(['host:openhands', 'staged:openhands']);
    const journal = readFileSync(join(out, 'model-journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    for (const r of records) {
      const arm = `${r.arm.backend}:${r.arm.variant}`;
      expect(`${arm} ${r.outcome}`, r.notes.join('; ')).toBe(`${arm} ok`);
      // exit 0 (the conversation ended FINISHED), exactly the two scripted turns, marker.txt = "fixture"
      expect(r.validity).toEqual({ exit_zero: 'pass', scripted_turns: 'pass', candidate_content: 'pass' });
      const mine = journal.filter((e) => e.attempt === r.facts.model_attempt);
      expect(mine.map((e) => `${e.endpoint}:${e.stream}:${e.turn}:${e.reply}:${e.tool_name}`), arm).toEqual(['chat:false:0:tool:terminal', 'chat:false:1:submit:finish']);
      // The phases happen in order, on the host's clock: interpreter, imports, first request, finish, exit.
      const m = r.metrics;
      expect(m.phase_start_ms, arm).toBeGreaterThan(0);
      expect(m.phase_imported_ms).toBeGreaterThan(m.phase_start_ms);
      expect(m.first_request_ms).toBeGreaterThan(m.phase_conversation_ms);
      expect(m.phase_finished_ms).toBeGreaterThan(m.tool_result_ms);
      expect(m.completion_ms).toBeGreaterThanOrEqual(m.phase_finished_ms);
      expect(m.agent_rss_peak_mib, arm).toBeGreaterThan(100);
      expect(r.facts.agent_phase_details.finished).toBe('finished');
      // The native trajectory: the SDK's events, the terminal action with the scripted command, the finish action.
      const events = JSON.parse(readFileSync(join(out, r.facts.trajectory_file), 'utf8')) as Array<{ kind: string; tool_name?: string; action?: { command?: string } }>;
      expect(events.length).toBe(r.facts.trajectory_events);
      const actions = events.filter((e) => e.kind === 'ActionEvent');
      expect(actions.map((e) => e.tool_name)).toEqual(['terminal', 'finish']);
      expect(actions[0]!.action!.command).toBe('printf fixture > marker.txt');
    }
  }, 600_000);
});
