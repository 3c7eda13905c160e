/**
 * Per-run replay fixtures, derived only from the run's context so any trial can (re)create them:
 * the seeded trajectory set under `<bundle>/replay/trajectories` (the bytes every attempt read stay in
 * the bundle), a baseline workspace per trajectory and the compiled preparer under a scratch
 * directory `$TMPDIR/sandbench-<run-id>-replay` registered for cleanup.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import type { ReplayAgent } from './agents.ts';
import { baselineFiles, type FixtureTask } from './fixture-task.ts';
import { buildPreparerBundle, buildPreparerSnapshot, type PreparerBundle } from './preparer-bundle.ts';
import { replaySection } from './replay-plan.ts';
import { writeTrajectorySet } from './trajectory-set.ts';
import { snapshotWorkspace } from './workspace-snapshot.ts';

export interface FixtureEntry {
  agent: ReplayAgent;
  index: number;
  path: string;
  /** Path relative to the bundle directory (recorded in facts). */
  bundlePath: string;
  sha256: string;
  task: FixtureTask;
  workspace: string;
  workspaceDigest: string;
}

export interface ReplayFixtures {
  scratchDir: string;
  trajectoriesDir: string;
  entries: Map<string, FixtureEntry>;
  /** The compiled preparer (bundle or snapshot blob), when the spec's preparer_entry asks for one. */
  bundle: PreparerBundle | null;
}

export const fixtureKey = (agent: string, index: number) => `${agent}/${index}`;

const cache = new Map<string, Promise<ReplayFixtures>>();

export function scratchDirOf(ctx: ExperimentContext): string {
  return join(tmpdir(), `sandbench-${ctx.run.runId}-replay`);
}

/** A small realistic baseline (a task note, a source file, a hidden file) that no attempt may change. */
export async function writeBaseline(dir: string, task: FixtureTask): Promise<void> {
  // builtin-fix: the rollout task's own baseline files
  if (task.fix) return cp(task.fix.sourceDir, dir, { recursive: true });
  for (const [path, bytes] of Object.entries(baselineFiles(task.userText))) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), bytes);
  }
}

async function create(ctx: ExperimentContext): Promise<ReplayFixtures> {
  const replay = replaySection(ctx.spec);
  const scratchDir = scratchDirOf(ctx);
  const trajectoriesDir = join(ctx.bundleDir, 'replay', 'trajectories');
  await rm(scratchDir, { recursive: true, force: true });
  await mkdir(scratchDir, { recursive: true });
  ctx.run.cleanup.register('tempdir', scratchDir, () => rm(scratchDir, { recursive: true, force: true }));
  // the re-executing modes replay the spec's task (issue 19): `effects` or `builtin-fix`
  const profile = replay.mode === 'prepare-only' ? 'marker' : replay.task;
  const files = await writeTrajectorySet(trajectoriesDir, replay.agents, replay.trajectories, ctx.spec.seed, profile, replay.wrong_fraction);
  const entries = new Map<string, FixtureEntry>();
  for (const file of files) {
    const workspace = join(scratchDir, 'workspaces', file.agent, `task-${file.index}`);
    await writeBaseline(workspace, file.task);
    entries.set(fixtureKey(file.agent, file.index), {
      agent: file.agent,
      index: file.index,
      path: file.path,
      bundlePath: join('replay', 'trajectories', file.agent, file.path.split('/').pop()!),
      sha256: file.sha256,
      task: file.task,
      workspace,
      workspaceDigest: (await snapshotWorkspace(workspace)).digest,
    });
  }
  const wanted = replay.subjects.includes('sandbench') && replay.mode === 'prepare-only' ? replay.preparer_entry : null;
  const bundle = wanted === 'bundle' ? await buildPreparerBundle(scratchDir) : wanted === 'snapshot' ? await buildPreparerSnapshot(scratchDir) : null;
  return { scratchDir, trajectoriesDir, entries, bundle };
}

export function ensureFixtures(ctx: ExperimentContext): Promise<ReplayFixtures> {
  let pending = cache.get(ctx.run.runId);
  if (!pending) {
    pending = create(ctx);
    cache.set(ctx.run.runId, pending);
    pending.catch(() => cache.delete(ctx.run.runId));
  }
  return pending;
}

export async function dropFixtures(ctx: ExperimentContext): Promise<void> {
  cache.delete(ctx.run.runId);
  await rm(scratchDirOf(ctx), { recursive: true, force: true });
}

export async function sha256File(path: string): Promise<string> {
  return createHash('sha256').update(await readFile(path)).digest('hex');
}
