/**
 * Writes the seeded synthetic trajectory set: one native file per (agent, task index), named
 * `<agent>/task-<i>.<ext>`, plus `trajectories.json` listing each file's sha256 so a run records
 * exactly which bytes each attempt read.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AGENT_FORMATS, type ReplayAgent } from './agents.ts';
import { fixtureTask, type FixtureProfile, type FixtureTask } from './fixture-task.ts';
import { effectsTask } from './reexecute/effects-task.ts';
import { builtinFixTask } from './reexecute/builtin-fix-task.ts';
import { GENERATORS } from './generate/index.ts';

export interface TrajectoryFile {
  agent: ReplayAgent;
  index: number;
  path: string;
  sha256: string;
  task: FixtureTask;
}

export function trajectoryFileName(agent: ReplayAgent, index: number): string {
  return join(agent, `task-${index}.${AGENT_FORMATS[agent].extension}`);
}

export function renderTrajectory(agent: ReplayAgent, index: number, seed: number, profile: FixtureProfile = 'marker', wrongFraction?: number): { task: FixtureTask; text: string } {
  const task = profile === 'effects' ? effectsTask(index, seed) : profile === 'builtin-fix' ? builtinFixTask(agent, index, seed, wrongFraction) : fixtureTask(index, seed);
  return { task, text: GENERATORS[agent](task) };
}

export async function writeTrajectorySet(dir: string, agents: readonly ReplayAgent[], count: number, seed: number, profile: FixtureProfile = 'marker', wrongFraction?: number): Promise<TrajectoryFile[]> {
  const files: TrajectoryFile[] = [];
  for (const agent of agents) {
    await mkdir(join(dir, agent), { recursive: true });
    for (let index = 0; index < count; index++) {
      const { task, text } = renderTrajectory(agent, index, seed, profile, wrongFraction);
      const path = join(dir, trajectoryFileName(agent, index));
      await writeFile(path, text);
      files.push({ agent, index, path, sha256: createHash('sha256').update(text).digest('hex'), task });
    }
  }
  const listing = files.map(({ agent, index, path, sha256 }) => ({ agent, index, file: trajectoryFileName(agent, index), sha256 }));
  await writeFile(join(dir, 'trajectories.json'), `${JSON.stringify({ seed, agents, count, ...(profile === 'marker' ? {} : { profile }), files: listing }, null, 2)}\n`);
  return files;
}
