/**
 * Workspace boundary: per trial, fresh host fixtures; a Python probe inside the sandbox tries the
 * positives (read/write the workspace, an internal socketpair) and the negatives (absolute host
 * path, symlink, /proc/self/root, parent traversal, a host Unix socket, the baseline's host path).
 * Judged by the host's final bytes (canary hashes, baseline digest, the host workspace), the
 * listener's accepted connections and whether a read returned a host-only secret — never by the
 * probes' return codes. A backend that lets a negative through is a finding, not a failed trial:
 * the trial is `ok` when the probes ran and the positives worked; the counts carry the result.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TaskCommand } from '../../harness/contracts/executor.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import { baseRecord, createTrialExperiment, READY_MARKER, type KindCheck, type TaskKind, type TrialObservation } from '../trial-experiment.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import {createFixture, hostEntries, PROBE_SCRIPT, READ_CANARIES, WORKSPACE_WRITTEN, WRITE_CANARIES, writeBaseline, type IsolationFixture,
} from './isolation-fixture.ts';
import { buildIsolationPlan } from './isolation-plan.ts';
import { isolationKindAnalysis } from './isolation-analysis.ts';
import { DEFAULT_PLACEMENT, PLACEMENTS, placementRoot, type Placement, type PlacementFacts } from './isolation-placement.ts';
import { isolationSpecSection } from './isolation-spec.ts';

const PROBE_PREFIX = 'ISOLATION_PROBE ';
export const PROBES = ['workspace_read', 'workspace_write', 'socketpair', ...Object.keys(READ_CANARIES), ...Object.keys(WRITE_CANARIES), 'alias_write', 'host_socket'];

interface ProbeLine {
  probe: string;
  ok: boolean;
  data: string | null;
}

function probeLines(observation: TrialObservation): Map<string, ProbeLine> {
  const probes = new Map<string, ProbeLine>();
  for (const line of observation.lines) {
    if (line.stream !== 'stdout' || !line.text.startsWith(PROBE_PREFIX)) continue;
    try {
      const parsed = JSON.parse(line.text.slice(PROBE_PREFIX.length)) as ProbeLine;
      probes.set(parsed.probe, parsed);
    } catch {
      // a torn line counts as a missing probe
    }
  }
  return probes;
}

/** Fixtures of the trial in flight (trials of one run are sequential). */
const fixtures = new Map<string, IsolationFixture>();

export async function judge(observation: TrialObservation, fixture: IsolationFixture): Promise<KindCheck> {
  // A connection the probe made before exiting is queued in the kernel; give the loop a moment to accept it.
  await sleep(50);
  const probes = probeLines(observation);
  const hostAfter = hostEntries(fixture.hostDir);
  const changedCanaries = Object.entries(WRITE_CANARIES).filter(([, file]) => hostAfter.get(file) !== fixture.hostBefore.get(file)).map(([probe]) => probe);
  const newHostEntries = [...hostAfter.keys()].filter((name) => !fixture.hostBefore.has(name));
  const changedReadCanaries = Object.values(READ_CANARIES).filter((file) => hostAfter.get(file) !== fixture.hostBefore.get(file));
  const readsReached = Object.keys(READ_CANARIES).filter((probe) => (probes.get(probe)?.data ?? '').includes(fixture.secrets[probe]!));
  const baselineAfter = treeDigest(fixture.baselineDir);
  const aliasChanged = baselineAfter !== fixture.baselineBefore;
  // The host directory backing /workspace: the baseline itself (staging claims) or a host copy (bind mounts).
  const hostWorkspace = observation.binding.hostPath;
  const hostWorkspaceWritten = existsSync(join(hostWorkspace, WORKSPACE_WRITTEN)) && readFileSync(join(hostWorkspace, WORKSPACE_WRITTEN), 'utf8') === fixture.writePayload;
  const candidateWrite = (await observation.candidates.read(WORKSPACE_WRITTEN))?.toString() ?? null;
  const connects = fixture.connections();

  const workspaceRead = (probes.get('workspace_read')?.data ?? '') === fixture.workspaceData ? 1 : 0;
  const workspaceWrite = candidateWrite === fixture.writePayload ? 1 : 0;
  const socketpair = probes.get('socketpair')?.ok === true ? 1 : 0;
  const outsideWrites = changedCanaries.length + changedReadCanaries.length + newHostEntries.length;
  const hostLowerMutated = aliasChanged || hostWorkspaceWritten ? 1 : 0;
  const missing = PROBES.filter((probe) => !probes.has(probe));
  const metrics: Record<string, number> = {
    probes_reported: probes.size,
    workspace_read_ok: workspaceRead,
    workspace_write_ok: workspaceWrite,
    socketpair_ok: socketpair,
    outside_reads: readsReached.length,
    outside_writes: outsideWrites,
    host_socket_connects: connects,
    alias_writes: aliasChanged ? 1 : 0,
    host_outside_mutated: outsideWrites > 0 ? 1 : 0,
    host_lower_mutated: hostLowerMutated,
    // Staged: the task's write is visible to the harness (candidate) while the host workspace never saw it.
    workspace_staged: workspaceWrite === 1 && !hostWorkspaceWritten && !aliasChanged ? 1 : 0,
  };
  const notes: string[] = [];
  if (missing.length > 0) notes.push(`probes missing from the output: ${missing.join(', ')}`);
  if (readsReached.length > 0) notes.push(`reads that returned a host-only secret: ${readsReached.join(', ')}`);
  if (outsideWrites > 0) notes.push(`host bytes outside the workspace changed: ${[...changedCanaries, ...changedReadCanaries, ...newHostEntries.map((n) => `new ${n}`)].join(', ')}`);
  if (aliasChanged) notes.push('the baseline workspace changed through its host path (lower-workspace alias)');
  if (connects > 0) notes.push(`host Unix socket accepted ${connects} connection(s)`);
  return {
    validity: {
      probes_ran: missing.length === 0 ? 'pass' : 'fail',
      positives_work: workspaceRead && workspaceWrite && socketpair ? 'pass' : 'fail',
    },
    failureCategory: 'task_failed',
    metrics,
    notes,
    facts: {
      probe_syscall_ok: Object.fromEntries([...probes].map(([name, line]) => [name, line.ok])),
      outside_reads_reached: readsReached,
      outside_writes_changed: changedCanaries,
      host_workspace: hostWorkspace,
    },
  };
}

function placementFor(planned: PlannedTrial, ctx: ExperimentContext): PlacementFacts {
  const requested = String(planned.params?.placement ?? DEFAULT_PLACEMENT);
  if (!(PLACEMENTS as readonly string[]).includes(requested)) throw new Error(`isolation: trial ${planned.trial_id} has unknown placement "${requested}"`);
  return placementRoot(requested as Placement, ctx.run.stateDir, ctx.run.runId);
}

export const isolationKind: TaskKind = {
  kind: 'isolation',
  spec: { section: isolationSpecSection },
  analysis: isolationKindAnalysis,
  scratchRootFor: (planned, ctx) => placementFor(planned, ctx).root,
  async prepareBaseline(_spec, dir) {
    writeBaseline(dir, 'prepare');
  },
  task: (spec): TaskCommand => ({ argv: ['/usr/bin/python3', PROBE_SCRIPT], env: spec.task.env, stdin: 'none' }),
  readyMarker: () => READY_MARKER,
  requiresResult: () => true,
  async check(observation) {
    const fixture = fixtures.get(observation.planned.trial_id);
    if (!fixture) return { validity: { fixture_present: 'fail' }, failureCategory: 'recording_failed', notes: ['no isolation fixture for this trial'] };
    return judge(observation, fixture);
  },
};

const generic = createTrialExperiment(isolationKind);

/** Placement roots other than the run's scratch dir, removed with the run (named sandbench-<run>, so `clean` finds them too). */
const extraRoots = new Set<string>();

/** The generic trial, with fresh fixtures (canaries, listener, baseline) at the trial's placement. */
export const isolationExperiment: Experiment = {
  ...generic,
  plan: buildIsolationPlan,
  async runTrial(planned, ctx) {
    let placement: PlacementFacts;
    try {
      placement = placementFor(planned, ctx);
    } catch (error) {
      return { ...baseRecord(ctx, planned), outcome: 'failed', failure_category: 'setup_failed', notes: [(error as Error).message] };
    }
    if (placement.root !== runScratchDir(ctx.run.stateDir, ctx.run.runId) && !extraRoots.has(placement.root)) {
      extraRoots.add(placement.root);
      const root = placement.root;
      ctx.run.cleanup.register('tempdir', root, () => rmSync(root, { recursive: true, force: true }));
    }
    // The same baseline path the generic trial stages from (isolationKind.scratchRootFor).
    const fixture = await createFixture(join(placement.root, 'baseline'));
    const handle = ctx.run.cleanup.register('server', `isolation listener ${fixture.hostDir}`, () => fixture.close());
    fixtures.set(planned.trial_id, fixture);
    try {
      const record = await generic.runTrial(planned, ctx);
      // where the host listener was bound: in the host dir, or the short socket dir beside it
      return { ...record, facts: { ...record.facts, fixture_placement: placement, host_socket: fixture.socketPath } };
    } finally {
      fixtures.delete(planned.trial_id);
      await ctx.run.cleanup.release(handle);
    }
  },
  async teardown(ctx) {
    await generic.teardown(ctx);
    for (const root of extraRoots) rmSync(root, { recursive: true, force: true });
    extraRoots.clear();
  },
};
