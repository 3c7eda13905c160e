import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPLAY_AGENTS } from '../../experiments/replay/agents.ts';
import { AUDIT_CHECKS, auditAttempt, markerFilesIn, type AttemptEvidence, type AuditExpectation } from '../../experiments/replay/audit.ts';
import { preparePrefix } from '../../experiments/replay/prepare-prefix.ts';
import { sandbenchEvidence } from '../../experiments/replay/subject-evidence.ts';
import { writeTrajectorySet, type TrajectoryFile } from '../../experiments/replay/trajectory-set.ts';
import { snapshotWorkspace, type WorkspaceSnapshot } from '../../experiments/replay/workspace-snapshot.ts';

let dir: string;
let files: TrajectoryFile[];
let workspace: string;
let baseline: WorkspaceSnapshot;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbench-test-replay-audit-'));
  files = await writeTrajectorySet(join(dir, 'trajectories'), REPLAY_AGENTS, 1, 11);
  workspace = join(dir, 'ws');
  await mkdir(join(workspace, 'src'), { recursive: true });
  await writeFile(join(workspace, 'src', 'main.py'), 'print(1)\n');
  baseline = await snapshotWorkspace(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const expectationFor = (file: TrajectoryFile): AuditExpectation => ({
  historicalCommand: file.task.turns[0].command,
  observation: file.task.turns[0].observation,
  futureCommand: file.task.turns[1].command,
  sourceSha256: file.sha256,
  baselineDigest: baseline.digest,
});

async function preparedEvidence(file: TrajectoryFile): Promise<AttemptEvidence> {
  const out = join(dir, 'out', file.agent);
  const result = await preparePrefix({ agent: file.agent, trajectoryPath: file.path, afterStep: 1, outDir: out });
  return sandbenchEvidence([JSON.stringify(result)], out);
}

describe('the preparer manifest passes the audit', () => {
  it.each(REPLAY_AGENTS)('%s', async (agent) => {
    const file = files.find((f) => f.agent === agent)!;
    const audit = auditAttempt(await preparedEvidence(file), expectationFor(file), { before: baseline, after: baseline, markerFiles: [] });
    expect(audit.failed).toEqual([]);
    expect(Object.keys(audit.validity).sort()).toEqual([...AUDIT_CHECKS].sort());
  });
});

describe('the audit catches what it must', () => {
  const file = () => files.find((f) => f.agent === 'codex')!;
  const failedFor = async (mutate: (e: AttemptEvidence) => AttemptEvidence, workspaceAfter?: WorkspaceSnapshot) => {
    const after = workspaceAfter ?? baseline;
    return auditAttempt(mutate(await preparedEvidence(file())), expectationFor(file()), { before: baseline, after, markerFiles: markerFilesIn(after) }).failed;
  };

  it('a second result line', async () => expect(await failedFor((e) => ({ ...e, resultCount: 2 }))).toEqual(['one_result']));
  it('a replayed tool call', async () => expect(await failedFor((e) => ({ ...e, replayedToolCalls: 1 }))).toEqual(['zero_replayed_tool_calls']));
  it('a boundary after the wrong step', async () => expect(await failedFor((e) => ({ ...e, afterStep: 2, boundaryToolCalls: 2 }))).toEqual(['boundary_after_step_1', 'boundary_one_tool_call']));
  it('a command that is not byte-exact', async () =>
    expect(await failedFor((e) => ({ ...e, keptCommands: [e.keptCommands[0]!.replace('>', ' >')] }))).toEqual(['historical_command_exact']));
  it('a lost observation', async () => expect(await failedFor((e) => ({ ...e, keptObservations: [] }))).toEqual(['observation_preserved']));
  it('the future action in the prefix', async () =>
    expect(await failedFor((e) => ({ ...e, writtenTexts: [...e.writtenTexts, `{"command":"${file().task.turns[1].command}"}`] }))).toEqual(['future_action_excluded']));
  it('a wrong source digest', async () => expect(await failedFor((e) => ({ ...e, sourceSha256: '0'.repeat(64) }))).toEqual(['source_digest_recorded']));
  it('unreadable evidence', async () => expect(await failedFor((e) => ({ ...e, problems: ['manifest missing'] }))).toEqual(['evidence_readable']));

  it('a marker file created in the workspace', async () => {
    await writeFile(join(workspace, 'marker-0.txt'), 'fixture-0');
    try {
      const tampered = await snapshotWorkspace(workspace);
      expect(await failedFor((e) => e, tampered)).toEqual(['workspace_unchanged', 'no_marker_files']);
    } finally {
      await rm(join(workspace, 'marker-0.txt'));
    }
  });

  it('a modified byte in a workspace file', async () => {
    await writeFile(join(workspace, 'src', 'main.py'), 'print(2)\n');
    try {
      expect(await failedFor((e) => e, await snapshotWorkspace(workspace))).toEqual(['workspace_unchanged']);
    } finally {
      await writeFile(join(workspace, 'src', 'main.py'), 'print(1)\n');
    }
  });
});
