import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPLAY_AGENTS } from '../../experiments/replay/agents.ts';
import { PARSERS } from '../../experiments/replay/parse/index.ts';
import { renderTrajectory, trajectoryFileName } from '../../experiments/replay/trajectory-set.ts';

const SAMPLES = new URL('../../data/trajectories/samples', import.meta.url).pathname;

describe.each(REPLAY_AGENTS)('%s golden sample', (agent) => {
  const text = readFileSync(join(SAMPLES, trajectoryFileName(agent, 0)), 'utf8');
  it('is what the generator writes for seed 20261006', () => expect(renderTrajectory(agent, 0, 20261006).text).toBe(text));
  it('parses', () => expect(PARSERS[agent](text).messages.length).toBeGreaterThanOrEqual(5));
});
