import { describe, expect, it } from 'vitest';
import { REPLAY_AGENTS } from '../../experiments/replay/agents.ts';
import { CanonicalHistorySchema } from '../../experiments/replay/canonical-history.ts';
import { cutAfterStep, toolBatches } from '../../experiments/replay/cut-prefix.ts';
import { HISTORICAL_OBSERVATION } from '../../experiments/replay/fixture-task.ts';
import { PARSERS } from '../../experiments/replay/parse/index.ts';
import { renderTrajectory } from '../../experiments/replay/trajectory-set.ts';

describe.each(REPLAY_AGENTS)('%s native format', (agent) => {
  const { task, text } = renderTrajectory(agent, 7, 20261006);
  const history = PARSERS[agent](text);

  it('parses to a valid canonical history with the fixture conversation', () => {
    expect(CanonicalHistorySchema.parse(history)).toEqual(history);
    expect(history.source.agent).toBe(agent);
    const user = history.messages.filter((m) => m.role === 'user');
    expect(user.map((m) => m.text)).toEqual(['fixture 7']);
    const assistants = history.messages.flatMap((m) => (m.role === 'assistant' ? [m] : []));
    expect(assistants.map((m) => m.text)).toEqual(['fixture-text-7-0', 'fixture-text-7-1']);
    expect(assistants.map((m) => m.tool_calls.map((c) => (c.kind === 'shell' ? c.command : null)))).toEqual([
      ['printf fixture-7 > marker-7.txt'],
      ['cat marker-7.txt'],
    ]);
    const results = history.messages.flatMap((m) => (m.role === 'tool' ? [m] : []));
    expect(results.map((r) => r.output)).toEqual([HISTORICAL_OBSERVATION, HISTORICAL_OBSERVATION]);
    for (const r of results) expect(r.exit_code === null || r.exit_code === 0).toBe(true);
    expect(toolBatches(history).map((b) => b.completeAt !== null)).toEqual([true, true]);
  });

  it('cuts after the first complete tool batch and leaves the future action out', () => {
    const prefix = cutAfterStep(history, 1);
    expect(prefix.batch.calls).toHaveLength(1);
    expect(prefix.keptCalls.map((c) => (c.kind === 'shell' ? c.command : ''))).toEqual([task.turns[0].command]);
    expect(prefix.keptObservations.map((o) => o.output)).toEqual([HISTORICAL_OBSERVATION]);
    expect(prefix.messages[prefix.messages.length - 1]!.role).toBe('tool');
    expect(JSON.stringify(prefix.messages)).not.toContain(task.turns[1].command);
    expect(prefix.excludedNextCalls).toBe(1);
  });

  it('is reproducible from the seed and changes with it', () => {
    expect(renderTrajectory(agent, 7, 20261006).text).toBe(text);
    expect(renderTrajectory(agent, 7, 1).text).not.toBe(text);
  });
});

describe('format-specific facts', () => {
  it('records the modelled versions where the format carries one', () => {
    const version = (agent: (typeof REPLAY_AGENTS)[number]) => PARSERS[agent](renderTrajectory(agent, 0, 1).text).source.recorded_version;
    expect(version('claude-code')).toBe('2.1.220');
    expect(version('codex')).toBe('0.149.0');
    expect(version('mini-swe-agent')).toBe('2.4.6');
    expect(version('swe-agent')).toBe('1.1.0');
    expect(version('openhands')).toBeNull();
  });

  it('keeps exit codes where the format has them and null where it does not', () => {
    const exits = (agent: (typeof REPLAY_AGENTS)[number]) =>
      PARSERS[agent](renderTrajectory(agent, 0, 1).text).messages.flatMap((m) => (m.role === 'tool' ? [m.exit_code] : []));
    expect(exits('openhands')).toEqual([0, 0]);
    expect(exits('mini-swe-agent')).toEqual([0, 0]);
    expect(exits('opencode')).toEqual([0, 0]);
    expect(exits('claude-code')).toEqual([null, null]);
    expect(exits('pi-agent')).toEqual([null, null]);
  });

  it('refuses a step beyond the complete batches', () => {
    const history = PARSERS.codex(renderTrajectory('codex', 0, 1).text);
    expect(() => cutAfterStep(history, 3)).toThrow(/boundary_out_of_range/);
  });
});
