/**
 * The replay experiment (issue 6): time how long each subject takes, as a separate process from
 * launch to exit, to prepare a continuation prefix after the first complete tool batch of an
 * agent-native trajectory, and audit every attempt (audit.ts). Arms are subject × agent
 * (`sandbench:codex`, `pvisor-replay:codex`, ...); a subject that is not installed is left out of the
 * plan and recorded in `<bundle>/replay/subjects.json`.
 */
import { execFile } from 'node:child_process';
import { baseRecord } from '../trial-experiment.ts';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { armLabel, type ArmRef, type FailureCategory, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { namedBackendIssues } from '../../harness/spec/spec-backends.ts';
import { startTrial } from '../../executors/spawn-trial.ts';
import type { ExitInfo } from '../../harness/contracts/executor.ts';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { isReplayAgent, type ReplayAgent } from './agents.ts';
import { auditAttempt, markerFilesIn, type AttemptEvidence } from './audit.ts';
import { categoryOfExitCode } from './replay-error.ts';
import { dropFixtures, ensureFixtures, fixtureKey, sha256File, type FixtureEntry, type ReplayFixtures } from './replay-fixtures.ts';
import { buildReplayPlan, replaySection } from './replay-plan.ts';
import { pvisorEvidence, sandbenchEvidence } from './subject-evidence.ts';
import { subjectArgv, subjectStatus, type ReplaySubject, type SubjectStatus } from './subjects.ts';
import { snapshotDifference, snapshotWorkspace } from './workspace-snapshot.ts';
import { replayKindAnalysis } from './replay-analysis.ts';
import { buildReplayOnlyPlan, dropReplayOnly, prepareReplayOnly, runReplayOnlyTrial } from './reexecute/replay-only-kind.ts';
import { replaySpecSection } from './replay-spec.ts';
import { rewardScoringArm } from './reexecute/continue-reward.ts';
import { buildBranchPointPlan, dropBranchPoint, prepareBranchPoint, runBranchPointTrial } from './reexecute/branch-point/branch-point-kind.ts';

const replayMode = (spec: Spec) => replaySection(spec).mode;

const execFileAsync = promisify(execFile);

/** sha256 of a subject's executable, hashed once per path (outside timing). */
const binaryDigests = new Map<string, Promise<string>>();
function binarySha256(path: string): Promise<string> {
  if (!binaryDigests.has(path)) binaryDigests.set(path, sha256File(path));
  return binaryDigests.get(path)!;
}

/** Subjects the spec asks for, split into available and skipped (with the reason). */
export function resolveSubjects(spec: Spec): { available: ReplaySubject[]; skipped: SubjectStatus[] } {
  const statuses = replaySection(spec).subjects.map(subjectStatus);
  return { available: statuses.filter((s) => s.available).map((s) => s.subject), skipped: statuses.filter((s) => !s.available) };
}

async function describeSubjects(spec: Spec, fixtures: ReplayFixtures): Promise<Record<string, unknown>[]> {
  return Promise.all(
    replaySection(spec).subjects.map(async (subject) => {
      const status = subjectStatus(subject);
      if (!status.available || !status.command) return { ...status };
      if (subject === 'sandbench') {
        return { ...status, preparer_entry: replaySection(spec).preparer_entry, node: process.version, bundle: fixtures.bundle };
      }
      const version = await execFileAsync(status.command, ['--version']).then((r) => r.stdout.trim(), (e: Error) => `unknown (${e.message})`);
      return { ...status, version, sha256: await sha256File(status.command) };
    }),
  );
}

interface AttemptTarget {
  subject: ReplaySubject;
  agent: ReplayAgent;
  entry: FixtureEntry;
}

function targetOf(planned: PlannedTrial, fixtures: ReplayFixtures): AttemptTarget | string {
  const subject = planned.arm.backend;
  const agent = String(planned.params?.agent ?? planned.arm.variant ?? '');
  const index = Number(planned.params?.trajectory);
  if (subject !== 'sandbench' && subject !== 'pvisor-replay') return `unknown replay subject "${subject}"`;
  if (!isReplayAgent(agent)) return `unknown agent "${agent}"`;
  const entry = fixtures.entries.get(fixtureKey(agent, index));
  if (!entry) return `no trajectory ${agent}/${index} in this run`;
  return { subject, agent, entry };
}

/** Why a finished process does not count, or null when it exited 0 and its output is worth auditing. */
function exitVerdict(exit: ExitInfo, subject: ReplaySubject, stdout: string[]): { category: FailureCategory; note: string; replayCategory: string | null } | null {
  if (exit.timedOut) return { category: 'timeout', note: 'subject exceeded the spec timeout and was killed', replayCategory: null };
  if (exit.signal) return { category: 'task_failed', note: `subject crashed (signal ${exit.signal})`, replayCategory: null };
  if (exit.exitCode === null) return { category: 'setup_failed', note: 'subject could not be launched (no exit code)', replayCategory: null };
  if (exit.exitCode === 0) return null;
  const replayCategory = subject === 'sandbench' ? categoryOfExitCode(exit.exitCode) : pvisorFailureCategory(stdout);
  return { category: 'task_failed', note: `subject exited ${exit.exitCode}${replayCategory ? ` (${replayCategory})` : ''}`, replayCategory };
}

function pvisorFailureCategory(stdout: string[]): string | null {
  for (const line of stdout) {
    try {
      const doc = JSON.parse(line) as { failure?: { category?: unknown } | null };
      if (doc.failure && typeof doc.failure.category === 'string') return doc.failure.category;
    } catch {
      // not JSON
    }
  }
  return null;
}

async function runAttempt(planned: PlannedTrial, ctx: ExperimentContext, fixtures: ReplayFixtures, target: AttemptTarget): Promise<TrialRecord> {
  const record = baseRecord(ctx, planned);
  const { subject, agent, entry } = target;
  const status = subjectStatus(subject);
  record.facts = {
    agent,
    trajectory_index: entry.index,
    repetition: planned.params?.repetition ?? null,
    trajectory_file: entry.bundlePath,
    trajectory_sha256: entry.sha256,
    subject,
    preparer_entry: subject === 'sandbench' ? replaySection(ctx.spec).preparer_entry : null,
    subject_command: status.command,
  };
  if (!status.available || !status.command) {
    return { ...record, failure_category: 'setup_failed', notes: [status.reason ?? 'subject unavailable'] };
  }
  // what actually ran: the compiled preparer for sandbench (bundle/snapshot), else the executable
  record.facts.subject_sha256 = subject === 'sandbench' && fixtures.bundle ? fixtures.bundle.sha256 : await binarySha256(status.command);
  const attemptDir = join(fixtures.scratchDir, 'attempts', planned.trial_id.replace(/[^A-Za-z0-9._-]/g, '_'));
  await rm(attemptDir, { recursive: true, force: true });
  await mkdir(join(attemptDir, 'state'), { recursive: true });
  const outputDir = join(attemptDir, 'out');
  try {
    const cpus = ctx.spec.controls.cpus;
    const argv = subjectArgv(subject, { agent, trajectory: entry.path, workspace: entry.workspace, outputDir, stateDir: join(attemptDir, 'state') }, {
      command: status.command,
      entry: replaySection(ctx.spec).preparer_entry,
      bundlePath: fixtures.bundle?.path ?? null,
    });
    const before = await snapshotWorkspace(entry.workspace);
    // Pinned like every executor's trial: the launcher applies the affinity before exec (no taskset exec
    // timed). startTrial, not spawnTrial: replay probes no executor, so the first attempt opens the launcher.
    const running = await startTrial({ argv, cwd: entry.workspace, stdin: 'none', timeoutMs: ctx.spec.timeout, controls: { cpus: cpus ?? null, budget: null } });
    const exit = await running.exit;
    const completionMs = Number(exit.tExitNs - running.tSpawnNs) / 1e6;
    const after = await snapshotWorkspace(entry.workspace);
    const stdout = running.lines.filter((l) => l.stream === 'stdout').map((l) => l.text);
    const stderr = running.lines.filter((l) => l.stream === 'stderr').map((l) => l.text);
    const trajectoryUnchanged = (await sha256File(entry.path)) === entry.sha256;
    record.exit_code = exit.exitCode;
    record.t_spawn_ns = running.tSpawnNs.toString();
    record.facts = {
      ...record.facts,
      argv,
      cpus: cpus ?? null,
      timing: running.timing ?? { path: 'node' },
      workspace_digest_baseline: entry.workspaceDigest,
      workspace_digest_before: before.digest,
      workspace_digest_after: after.digest,
      ...(stderr.length > 0 ? { stderr_tail: stderr.slice(-5) } : {}),
    };
    const verdict = exitVerdict(exit, subject, stdout);
    if (verdict) {
      return {
        ...record,
        outcome: 'failed',
        failure_category: verdict.category,
        // a killed or crashed process has no completion time worth keeping
        metrics: exit.timedOut ? {} : { completion_ms: completionMs },
        completion_ms: exit.timedOut ? null : completionMs,
        validity: { subject_exit: 'fail', trajectory_unchanged: trajectoryUnchanged ? 'pass' : 'fail' },
        notes: [verdict.note, ...stderr.slice(-1)],
        facts: { ...record.facts, replay_failure_category: verdict.replayCategory },
      };
    }
    const evidence: AttemptEvidence = subject === 'sandbench' ? await sandbenchEvidence(stdout, outputDir) : await pvisorEvidence(stdout, outputDir, agent);
    const turns = entry.task.turns;
    const audit = auditAttempt(
      evidence,
      { historicalCommand: turns[0].command, observation: turns[0].observation, futureCommand: turns[1].command, sourceSha256: entry.sha256, baselineDigest: entry.workspaceDigest },
      { before, after, markerFiles: markerFilesIn(after) },
    );
    const validity: Record<string, 'pass' | 'fail'> = { subject_exit: 'pass', ...audit.validity, trajectory_unchanged: trajectoryUnchanged ? 'pass' : 'fail' };
    const failed = Object.entries(validity).filter(([, v]) => v === 'fail').map(([k]) => k);
    const notes = [...audit.notes];
    if (!audit.validity.workspace_unchanged) notes.push(`workspace changed: ${snapshotDifference(before, after).join(', ') || `baseline digest ${entry.workspaceDigest} != ${before.digest}`}`);
    if (!trajectoryUnchanged) notes.push('the trajectory file changed during the attempt');
    return {
      ...record,
      outcome: failed.length === 0 ? 'ok' : 'invalid',
      failure_category: null,
      completion_ms: completionMs,
      metrics: { completion_ms: completionMs },
      validity,
      notes: failed.length === 0 ? notes : [`audit failed: ${failed.join(', ')}`, ...notes],
      facts: { ...record.facts, audit_failed: failed },
    };
  } finally {
    await rm(attemptDir, { recursive: true, force: true });
  }
}

export const replayExperiment: Experiment = {
  kind: 'replay',
  spec: {
    section: replaySpecSection,
    // a trajectory is repeated replay.repetitions times, with no warmups (the published protocol has none)
    repeatsWith: 'replay.repetitions',
    refine: (spec, backends) => namedBackendIssues(['replay', 'scoring_backend'], [replaySection(spec).scoring_backend], backends),
  },
  analysis: replayKindAnalysis,

  plan(spec: Spec): Plan {
    if (replayMode(spec) === 'branch-point') return buildBranchPointPlan(spec);
    if (replayMode(spec) !== 'prepare-only') return buildReplayOnlyPlan(spec);
    return buildReplayPlan(spec, resolveSubjects(spec).available);
  },

  /** prepare-only subjects are plain host processes spawned here: nothing to probe. replay-only
   *  re-executes the prefix on each spec arm's backend. */
  executorArms(spec: Spec): ArmRef[] {
    const arms = replayMode(spec) !== 'prepare-only' && replaySection(spec).subjects.includes('sandbench') ? specArms(spec) : [];
    // continued builtin-fix attempts are scored on one scoring backend, prepared once like every arm
    const scoring = rewardScoringArm(spec);
    return scoring && !arms.some((arm) => arm.backend === scoring.backend && arm.variant === null) ? [...arms, scoring] : arms;
  },

  async prepare(ctx: ExperimentContext): Promise<void> {
    if (replayMode(ctx.spec) === 'branch-point') return prepareBranchPoint(ctx);
    if (replayMode(ctx.spec) !== 'prepare-only') return prepareReplayOnly(ctx);
    const fixtures = await ensureFixtures(ctx);
    const subjects = await describeSubjects(ctx.spec, fixtures);
    for (const skipped of resolveSubjects(ctx.spec).skipped) ctx.run.log(`replay: skipping subject ${skipped.subject}: ${skipped.reason}`);
    await writeFile(join(ctx.bundleDir, 'replay', 'subjects.json'), `${JSON.stringify({ subjects }, null, 2)}\n`);
  },

  async runTrial(planned: PlannedTrial, ctx: ExperimentContext): Promise<TrialRecord> {
    if (replayMode(ctx.spec) === 'branch-point') return runBranchPointTrial(planned, ctx);
    if (replayMode(ctx.spec) !== 'prepare-only') return runReplayOnlyTrial(planned, ctx);
    try {
      const fixtures = await ensureFixtures(ctx);
      const target = targetOf(planned, fixtures);
      if (typeof target === 'string') return { ...baseRecord(ctx, planned), notes: [target] };
      return await runAttempt(planned, ctx, fixtures, target);
    } catch (error) {
      return { ...baseRecord(ctx, planned), failure_category: 'harness_error', notes: [`replay ${armLabel(planned.arm)}: ${error instanceof Error ? error.message : String(error)}`] };
    }
  },

  async teardown(ctx: ExperimentContext): Promise<void> {
    await dropBranchPoint(ctx);
    await dropReplayOnly(ctx);
    await dropFixtures(ctx);
  },
};
