import { describe, expect, it } from 'vitest';
import { REPLAY_AGENTS } from '../../../experiments/replay/agents.ts';
import { cutAfterStep } from '../../../experiments/replay/cut-prefix.ts';
import { PARSERS } from '../../../experiments/replay/parse/index.ts';
import { EFFECTS_PREFIX_CALLS } from '../../../experiments/replay/reexecute/effects-task.ts';
import { renderTrajectory } from '../../../experiments/replay/trajectory-set.ts';

describe.each(REPLAY_AGENTS)('%s effects trajectory', (agent) => {
  const { task, text } = renderTrajectory(agent, 3, 20261006, 'effects');
  const history = PARSERS[agent](text);

  it('parses with every prefix command and observation byte-exact, cut before the future action', () => {
    const prefix = cutAfterStep(history, task.prefixTurns);
    expect(task.prefixTurns).toBe(EFFECTS_PREFIX_CALLS);
    const commands = prefix.keptCalls.map((c) => (c.kind === 'shell' ? c.command : null));
    expect(commands).toEqual(task.turns.slice(0, task.prefixTurns).map((t) => t.command));
    expect(prefix.keptObservations.map((o) => o.output)).toEqual(task.turns.slice(0, task.prefixTurns).map((t) => t.observation));
    expect(JSON.stringify(prefix.messages)).not.toContain(task.turns[task.prefixTurns]!.command);
    expect(prefix.excludedNextCalls).toBe(1);
  });

  it('marks exactly the timestamp call fresh and keeps versions pinned', () => {
    expect(task.turns.filter((t) => t.fresh).map((t) => t.command)).toEqual(['date -u +%Y-%m-%dT%H:%M:%S.%NZ']);
    expect(renderTrajectory(agent, 3, 20261006, 'effects').text).toBe(text);
    expect(history.source.modelled_version).toBe(PARSERS[agent](renderTrajectory(agent, 3, 20261006).text).source.modelled_version);
  });
});
