/**
 * Where a rollout's harness milliseconds go (issue 33): each step of the per-attempt pipeline run
 * alone, back to back, n times, on one recorded candidate of the built-in task set, with the harness
 * process's CPU (process.cpuUsage: every thread) and the launcher co-process's own CPU per call.
 * Sequential, so the figures do not depend on the machine's load the way a cell's do; a cell adds the
 * loop's own bookkeeping on top (bench/harness-scale.bench.ts).
 *
 * Also the cost of each memory method (item 2): one attempt cgroup made, its kernel peak read and
 * removed (harness/controls/attempt-cgroup.ts, the rollout kind's per-attempt figure), against one
 * PSS reading of a running python process tree (experiments/rollout/tree-pss.ts, smaps_rollup).
 * Scratch steps run on both the fixture root (ext4 here) and the in-memory root
 * (harness/run/memory-scratch.ts), which is the reason the candidate is extracted in memory.
 * Run: `npm run bench -- harness-steps` (needs the recordings harness-scale makes:
 * SANDBENCH_SCALE_RECORDINGS=<file>; without one it records first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CgroupBudget } from '../harness/controls/cgroup-budget.ts';
import { AttemptCgroup } from '../harness/controls/attempt-cgroup.ts';
import { CleanupRegistry } from '../harness/run/cleanup-registry.ts';
import { MEMORY_SCRATCH_ROOT } from '../harness/run/memory-scratch.ts';
import { fixtureRoot, stateDir } from '../harness/state-dir.ts';
import { loadTaskSet } from '../experiments/rollout/tasks/index.ts';
import { extractCandidate, storeObject } from '../experiments/rollout/candidate-store.ts';
import { SCRATCH_BATCH, ScratchReaper } from '../experiments/rollout/scratch-reaper.ts';
import { readTrajectory, trajectorySource } from '../experiments/rollout/native-trajectory.ts';
import { treePssKiB } from '../experiments/rollout/tree-pss.ts';
import type { RolloutArm } from '../experiments/rollout/rollout-arms.ts';
import { copyWorkspace, diffWorkspaces, removeTree } from '../executors/workspace-diff.ts';
import { runHelper } from '../executors/launch/helper-command.ts';
import { timingSession } from '../executors/launch/timing-session.ts';
import { meterHelperCpu } from '../executors/launch/helper-cpu.ts';
import { loadRecordings, type Recordings } from './harness-standin-backend.ts';

const N = 300;
const WARMUP = 30;
const TASK = 'clamp-bounds';
const BUILTIN_ARM: RolloutArm = { cli: null, agentName: 'builtin', cpuModel: null, fault: null } as RolloutArm;

interface StepFigure {
  step: string;
  harnessMs: number;
  launcherMs: number;
  n: number;
}

async function timeStep(step: string, fn: (i: number) => unknown): Promise<StepFigure> {
  for (let i = 0; i < WARMUP; i++) await fn(N + i);
  const launcher = meterHelperCpu();
  const start = process.cpuUsage();
  for (let i = 0; i < N; i++) await fn(i);
  const used = process.cpuUsage(start);
  const helper = launcher.read();
  return { step, harnessMs: (used.user + used.system) / 1000 / N, launcherMs: (helper.userMs + helper.systemMs) / N, n: N };
}

/** The scratch steps of one attempt, below `root` (one directory per iteration, as attempts have). */
async function scratchSteps(label: string, root: string, recordings: Recordings): Promise<StepFigure[]> {
  const set = await loadTaskSet('builtin', { cacheDir: join(stateDir(), 'rollout-tasks'), log: () => undefined });
  const task = set.tasks.find((t) => t.id === TASK)!;
  const recorded = recordings[TASK]!;
  const collected = { changed: recorded.changed, read: async (path: string) => (recorded.files[path] ? Buffer.from(recorded.files[path]!, 'base64') : null), facts: {} };
  const dir = (i: number) => join(root, `a${i}`);
  const figures = [
    await timeStep(`${label}: trial dirs (agent, scoring, scoring-workspace)`, (i) => ['agent', 'scoring', 'scoring-workspace'].forEach((name) => mkdirSync(join(dir(i), name), { recursive: true }))),
    await timeStep(`${label}: extractCandidate`, () => extractCandidate(collected)),
  ];
  // The host and container backends' staging and collect: the baseline copied, the recorded
  // candidate written over it (untimed, as the agent's work), and the copy-side diff.
  const workspace = (i: number) => join(dir(i), 'agent', 'workspace');
  figures.push(await timeStep(`${label}: copyWorkspace (cp -a via launcher + ctime window)`, (i) => copyWorkspace(task.repoDir, workspace(i))));
  for (let i = 0; i < N + WARMUP; i++) writeCandidate(workspace(i), recorded.files);
  figures.push(await timeStep(`${label}: diffWorkspaces (the copy walked; changed entries compared)`, async (i) => {
    const changed = await diffWorkspaces(task.repoDir, workspace(i));
    if (changed.length !== recorded.changed.length) throw new Error(`harness-steps: the diff found ${changed.length} changed paths, the recording ${recorded.changed.length}`);
  }));
  const candidate = await extractCandidate(collected);
  figures.push(await timeStep(`${label}: stageScoringWorkspace (cp -a via launcher + candidate + runner)`, (i) => task.evaluator.stageScoringWorkspace(join(dir(i), 'scoring-workspace'), candidate)));
  figures.push(await timeStep(`${label}: removeTree (rm -rf via launcher)`, (i) => removeTree(dir(i))));
  // The cell's way (scratch-reaper.ts): a rename each, one rm -rf per batch; the last call closes the
  // reaper, so every removal is in the window (with the warm-up's partial batch: counted against it).
  figures.push(await timeStep(`${label}: trial dirs again, for the reaper`, (i) => ['agent', 'scoring', 'scoring-workspace'].forEach((name) => mkdirSync(join(dir(i), name), { recursive: true }))));
  const reaper = new ScratchReaper(join(root, 'trash'));
  figures.push(await timeStep(`${label}: ScratchReaper.discard (rename; rm -rf per ${SCRATCH_BATCH})`, async (i) => {
    await reaper.discard(dir(i));
    if (i === N - 1 && (await reaper.close()).length > 0) throw new Error('harness-steps: the reaper left scratch behind');
  }));
  return figures;
}

function writeCandidate(workspace: string, files: Record<string, string>): void {
  for (const [path, base64] of Object.entries(files)) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), Buffer.from(base64, 'base64'));
  }
}

async function pipelineSteps(recordings: Recordings, bundle: string): Promise<StepFigure[]> {
  const set = await loadTaskSet('builtin', { cacheDir: join(stateDir(), 'rollout-tasks'), log: () => undefined });
  const task = set.tasks.find((t) => t.id === TASK)!;
  const recorded = recordings[TASK]!;
  const collected = { changed: recorded.changed, read: async (path: string) => (recorded.files[path] ? Buffer.from(recorded.files[path]!, 'base64') : null), facts: {} };
  const trajectory = await readTrajectory(collected, trajectorySource(BUILTIN_ARM), task.prompt);
  const stdout = recorded.scoring!.lines.filter((l) => l.stream === 'stdout').map((l) => l.text).join('\n');
  return [
    await timeStep('readTrajectory (parse + schema)', () => readTrajectory(collected, trajectorySource(BUILTIN_ARM), task.prompt)),
    await timeStep('storeObject (trajectory, already stored)', () => storeObject(bundle, trajectory.content!)),
    await timeStep('parseScore', () => task.evaluator.parseScore({ exitCode: recorded.scoring!.exitCode, stdout, stderr: '' })),
    await timeStep('runHelper(true): one launcher round trip', () => runHelper(['true'])),
  ];
}

/** Memory methods' cost per attempt: a cgroup made, peaked and removed; one PSS reading of a python tree. */
async function memorySteps(): Promise<StepFigure[]> {
  const cleanup = new CleanupRegistry(`bench-steps-${process.pid}`);
  const budget = CgroupBudget.create({ runId: cleanup.runId, label: 'steps', cpus: '0-1', memoryMiB: 512, cleanup });
  const python = spawn('python3', ['-c', 'import time, json, sqlite3; time.sleep(600)'], { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    return [
      await timeStep('memory: attempt cgroup create + peak + destroy (cgroup-peak)', async (i) => {
        const cgroup = AttemptCgroup.create(budget, `s${i}`);
        cgroup.peak();
        await cgroup.destroy();
      }),
      await timeStep('memory: one PSS reading of a python process (process-tree-pss)', () => treePssKiB([python.pid!])),
    ];
  } finally {
    python.kill('SIGKILL');
    await budget.destroy();
  }
}

export async function runHarnessStepsBench(): Promise<StepFigure[]> {
  const recordingsPath = process.env.SANDBENCH_SCALE_RECORDINGS;
  if (!recordingsPath || !existsSync(recordingsPath)) {
    console.log('harness-steps: set SANDBENCH_SCALE_RECORDINGS to the file `npm run bench -- harness-scale` keeps (it records real host rollouts); skipped');
    return [];
  }
  const recordings = loadRecordings(recordingsPath);
  await timingSession();
  const load = loadavg()[0]!;
  mkdirSync(fixtureRoot(), { recursive: true });
  mkdirSync(MEMORY_SCRATCH_ROOT, { recursive: true });
  const disk = mkdtempSync(join(fixtureRoot(), 'steps-'));
  const memory = mkdtempSync(join(MEMORY_SCRATCH_ROOT, 'steps-'));
  const bundle = mkdtempSync(join(tmpdir(), 'steps-bundle-'));
  try {
    const figures = [...(await pipelineSteps(recordings, bundle)), ...(await scratchSteps('fixture root', disk, recordings)), ...(await scratchSteps('memory scratch', memory, recordings)), ...(await memorySteps())];
    for (const f of figures) console.log(`harness-steps ${f.step.padEnd(78)} harness ${f.harnessMs.toFixed(3)} ms, launcher ${f.launcherMs.toFixed(3)} ms per call (n = ${f.n})`);
    console.log(`harness-steps: sequential, after ${WARMUP} warm-up calls each; harness = process.cpuUsage (every thread), launcher = its own utime+stime (10 ms ticks: ±${(10 / N).toFixed(3)} ms per call); the commands it runs excluded. Load average ${load.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`);
    return figures;
  } finally {
    for (const dir of [disk, memory, bundle]) rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runHarnessStepsBench();
  process.exit(0);
}
