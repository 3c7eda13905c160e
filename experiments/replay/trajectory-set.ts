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

/** Builds one trajectory's task: (agent, index, seed, wrong fraction) → task. */
type TaskBuilder = (agent: ReplayAgent, index: number, seed: number, wrongFraction?: number) => FixtureTask;

const markerTask: TaskBuilder = (_agent, index, seed) => fixtureTask(index, seed);
const effectsBuilder: TaskBuilder = (_agent, index, seed) => effectsTask(index, seed);

/**
 * The builder of a profile. builtin-fix is imported only when asked for: it reaches the rollout task
 * set and harness/state-dir.ts (import.meta.url), which the replay preparer's CommonJS snapshot bundle
 * (preparer-bundle.ts, `replay generate` is in its graph) cannot evaluate.
 */
async function taskBuilder(profile: FixtureProfile): Promise<TaskBuilder> {
  if (profile === 'effects') return effectsBuilder;
  if (profile === 'builtin-fix') return (await import('./reexecute/builtin-fix-task.ts')).builtinFixTask;
  return markerTask;
}

/** A trajectory of the marker or effects profile (synchronous: their tasks are generated in memory). */
export function renderTrajectory(agent: ReplayAgent, index: number, seed: number, profile: Exclude<FixtureProfile, 'builtin-fix'> = 'marker'): { task: FixtureTask; text: string } {
  return renderWith(profile === 'effects' ? effectsBuilder : markerTask, agent, index, seed);
}

function renderWith(build: TaskBuilder, agent: ReplayAgent, index: number, seed: number, wrongFraction?: number): { task: FixtureTask; text: string } {
  const task = build(agent, index, seed, wrongFraction);
  return { task, text: GENERATORS[agent](task) };
}

export async function writeTrajectorySet(dir: string, agents: readonly ReplayAgent[], count: number, seed: number, profile: FixtureProfile = 'marker', wrongFraction?: number): Promise<TrajectoryFile[]> {
  const files: TrajectoryFile[] = [];
  const build = await taskBuilder(profile);
  for (const agent of agents) {
    await mkdir(join(dir, agent), { recursive: true });
    for (let index = 0; index < count; index++) {
      const { task, text } = renderWith(build, agent, index, seed, wrongFraction);
      const path = join(dir, trajectoryFileName(agent, index));
      await writeFile(path, text);
      files.push({ agent, index, path, sha256: createHash('sha256').update(text).digest('hex'), task });
    }
  }
  const listing = files.map(({ agent, index, sha256 }) => ({ agent, index, file: trajectoryFileName(agent, index), sha256 }));
  await writeFile(join(dir, 'trajectories.json'), `${JSON.stringify({ seed, agents, count, ...(profile === 'marker' ? {} : { profile }), files: listing }, null, 2)}\n`);
  return files;
}
