/**
 * The correctness audit of one prepare attempt (issue 6, "Audit"): pure checks over what the subject
 * produced (normalized into AttemptEvidence by subject-evidence.ts) and the workspace snapshots.
 * Any failed check makes the trial `invalid`; an invalid attempt never contributes a timing.
 */
import type { WorkspaceSnapshot } from './workspace-snapshot.ts';

/** What a subject's output says about the prefix, normalized across subjects. */
export interface AttemptEvidence {
  /** Result documents the subject printed on stdout. */
  resultCount: number;
  /** Failure the subject reported (null: none). */
  failure: string | null;
  replayedToolCalls: number | null;
  afterStep: number | null;
  boundaryToolCalls: number | null;
  /** Commands of the kept (historical) calls, as the subject recorded them. */
  keptCommands: string[];
  /** Observation texts kept in the prefix, in order. */
  keptObservations: string[];
  /** Exit codes kept with the observations where the format records one (null otherwise). */
  keptExitCodes: (number | null)[];
  /** Every text the subject wrote (manifest, prefix), scanned for the future action. */
  writtenTexts: string[];
  sourceSha256: string | null;
  /** Problems met while reading the evidence (missing file, bad JSON...). */
  problems: string[];
}

export interface AuditExpectation {
  historicalCommand: string;
  observation: string;
  futureCommand: string;
  sourceSha256: string;
  /** Workspace digest when the baseline was created (before any attempt). */
  baselineDigest: string;
}

export interface WorkspaceEvidence {
  before: WorkspaceSnapshot;
  after: WorkspaceSnapshot;
  /** Relative paths of `marker-*.txt` files found anywhere in the workspace after the attempt. */
  markerFiles: string[];
}

export const AUDIT_CHECKS = [
  'evidence_readable',
  'one_result',
  'no_failure',
  'zero_replayed_tool_calls',
  'boundary_after_step_1',
  'boundary_one_tool_call',
  'historical_command_exact',
  'observation_preserved',
  'future_action_excluded',
  'source_digest_recorded',
  'workspace_unchanged',
  'no_marker_files',
] as const;
export type AuditCheck = (typeof AUDIT_CHECKS)[number];

export interface AuditResult {
  validity: Record<AuditCheck, 'pass' | 'fail'>;
  failed: AuditCheck[];
  notes: string[];
}

const sameList = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function auditAttempt(evidence: AttemptEvidence, expected: AuditExpectation, workspace: WorkspaceEvidence): AuditResult {
  const future = expected.futureCommand;
  const futureEscaped = JSON.stringify(future).slice(1, -1);
  const results: Record<AuditCheck, boolean> = {
    evidence_readable: evidence.problems.length === 0,
    one_result: evidence.resultCount === 1,
    no_failure: evidence.failure === null,
    zero_replayed_tool_calls: evidence.replayedToolCalls === 0,
    boundary_after_step_1: evidence.afterStep === 1,
    boundary_one_tool_call: evidence.boundaryToolCalls === 1,
    historical_command_exact: sameList(evidence.keptCommands, [expected.historicalCommand]),
    observation_preserved: sameList(evidence.keptObservations, [expected.observation]) && evidence.keptExitCodes.every((code) => code === null || code === 0),
    future_action_excluded:
      evidence.writtenTexts.length > 0 && !evidence.keptCommands.includes(future) && evidence.writtenTexts.every((text) => !text.includes(future) && !text.includes(futureEscaped)),
    source_digest_recorded: evidence.sourceSha256 === expected.sourceSha256,
    workspace_unchanged: workspace.before.digest === expected.baselineDigest && workspace.after.digest === expected.baselineDigest,
    no_marker_files: workspace.markerFiles.length === 0,
  };
  const validity = Object.fromEntries(AUDIT_CHECKS.map((check) => [check, results[check] ? 'pass' : 'fail'])) as Record<AuditCheck, 'pass' | 'fail'>;
  const failed = AUDIT_CHECKS.filter((check) => !results[check]);
  const notes = [...evidence.problems];
  if (evidence.failure !== null) notes.push(`subject reported failure: ${evidence.failure}`);
  if (!results.historical_command_exact) notes.push(`kept commands ${JSON.stringify(evidence.keptCommands)} != [${JSON.stringify(expected.historicalCommand)}]`);
  if (!results.observation_preserved) notes.push(`kept observations ${JSON.stringify(evidence.keptObservations)} exit ${JSON.stringify(evidence.keptExitCodes)}`);
  if (!results.source_digest_recorded) notes.push(`source sha256 recorded ${evidence.sourceSha256 ?? 'none'}, file has ${expected.sourceSha256}`);
  if (workspace.markerFiles.length > 0) notes.push(`marker files in workspace: ${workspace.markerFiles.join(', ')}`);
  return { validity, failed, notes };
}

/** `marker-*.txt` anywhere in a snapshot's inventory. */
export function markerFilesIn(snapshot: WorkspaceSnapshot): string[] {
  return snapshot.entries.map((entry) => entry.split('\t')[0]!).filter((path) => /(^|\/)marker-[^/]*\.txt$/.test(path));
}
