/**
 * Pure verdict of one checkpoint trial. Every check compares what the children report with what the
 * host knows (the seed's edits, the parent's state at checkpoint, the host baseline's digest):
 *  - parent_state_written: the parent really reached the mid-rollout state (edits, delete, counter);
 *  - children_ready: all K children answered (a refusal or timeout is an infrastructure failure);
 *  - files_match: each child sees the parent's files byte for byte (tree digest at checkpoint);
 *  - process_state: each child has the parent's counter, token and structure — checked only where
 *    the mechanism claims process state; a claim that does not hold makes the trial `invalid`;
 *  - siblings_isolated: each child sees its own writes and none of its siblings', its counter moved
 *    by its own increment only;
 *  - parent_frozen: the frozen parent state is unchanged after the children ran;
 *  - baseline_unchanged: the host baseline workspace is byte-identical.
 */
import type { FailureCategory, Outcome } from '../../harness/journal/trial-record.ts';
import type { CheckpointObservation, ChildObservation } from './checkpoint-observation.ts';

export interface CheckpointVerdict {
  outcome: Outcome;
  failureCategory: FailureCategory | null;
  validity: Record<string, 'pass' | 'fail'>;
  counts: { ready: number; filesOk: number; processOk: number; isolatedOk: number };
  notes: string[];
}

const pass = (ok: boolean): 'pass' | 'fail' => (ok ? 'pass' : 'fail');

export function childFilesOk(obs: CheckpointObservation, child: ChildObservation): boolean {
  return child.before !== null && obs.parent !== null && child.before.tree === obs.parent.view.tree && child.before.files === obs.parent.view.files;
}

export function childProcessOk(obs: CheckpointObservation, child: ChildObservation): boolean {
  const parent = obs.parent?.view;
  return child.before !== null && parent !== undefined && child.before.counter === parent.counter && child.before.token === parent.token && child.before.structure === parent.structure;
}

export function childIsolated(obs: CheckpointObservation, child: ChildObservation): boolean {
  const expected = obs.divergence[child.index];
  if (!expected || child.before === null) return false;
  return child.ownSha === expected.ownSha && child.siblingsSeen === 0 && child.sharedSha === expected.sharedSha && child.counterAfter === child.before.counter + 1;
}

export function judgeCheckpoint(obs: CheckpointObservation): CheckpointVerdict {
  const notes: string[] = [];
  const validity: Record<string, 'pass' | 'fail'> = {};
  const counts = { ready: 0, filesOk: 0, processOk: 0, isolatedOk: 0 };
  if (obs.infra && !obs.parent) {
    return { outcome: 'failed', failureCategory: obs.infra.category, validity: { parent_ready: 'fail' }, counts, notes: [obs.infra.reason] };
  }
  const parent = obs.parent!;
  const editsOk = Object.entries(obs.expected.shas).every(([path, sha]) => parent.shas[path] === sha);
  const deletedOk = parent.deletedPresent === '0'.repeat(obs.expected.deleted.length);
  const bigOk = typeof parent.shas[obs.expected.bigFile] === 'string';
  const counterOk = parent.view.counter === obs.expected.counter;
  validity.parent_state_written = pass(editsOk && deletedOk && bigOk && counterOk);
  if (!editsOk) notes.push('the parent does not see its own edits');
  if (!deletedOk) notes.push(`deleted paths still present in the parent: ${parent.deletedPresent}`);
  if (!counterOk) notes.push(`parent counter ${parent.view.counter}, expected ${obs.expected.counter}`);

  const claimsProcess = obs.preserves === 'files+process';
  const ready = obs.childObservations.filter((child) => child.error === null && child.before !== null);
  counts.ready = ready.length;
  validity.children_ready = pass(ready.length === obs.children && !obs.infra);
  for (const child of obs.childObservations) if (child.error) notes.push(`child ${child.index}: ${child.error}`);
  for (const child of ready) {
    const files = childFilesOk(obs, child);
    const proc = childProcessOk(obs, child);
    const isolated = childIsolated(obs, child);
    if (files) counts.filesOk++;
    if (proc) counts.processOk++;
    if (isolated) counts.isolatedOk++;
    if (!files) notes.push(`child ${child.index}: files differ from the parent at checkpoint (tree ${child.before?.tree.slice(0, 12)} vs ${parent.view.tree.slice(0, 12)})`);
    if (claimsProcess && !proc) notes.push(`child ${child.index}: process state lost (counter ${child.before?.counter} vs ${parent.view.counter}, token ${child.before?.token} vs ${parent.view.token})`);
    if (!isolated) notes.push(`child ${child.index}: not isolated (own ${child.ownSha}, siblings seen ${child.siblingsSeen}, shared ${child.sharedSha}, counter ${child.before?.counter} → ${child.counterAfter})`);
  }
  validity.files_match = pass(counts.filesOk === ready.length && ready.length > 0);
  if (claimsProcess) validity.process_state = pass(counts.processOk === ready.length && ready.length > 0);
  validity.siblings_isolated = pass(counts.isolatedOk === ready.length && ready.length > 0);
  validity.parent_frozen = pass(obs.frozenBefore !== null && obs.frozenBefore === obs.frozenAfter);
  if (obs.frozenBefore !== obs.frozenAfter) notes.push(`the frozen parent state changed while the children ran (${obs.frozenBefore} → ${obs.frozenAfter})`);
  validity.baseline_unchanged = pass(obs.baselineAfter === obs.baselineBefore);
  if (obs.baselineAfter !== obs.baselineBefore) notes.push('the host baseline workspace changed');

  // Infrastructure first (a refused restore is not the mechanism's correctness finding), then correctness.
  if (obs.infra || validity.children_ready === 'fail') {
    return { outcome: 'failed', failureCategory: obs.infra?.category ?? 'setup_failed', validity, counts, notes: obs.infra ? [obs.infra.reason, ...notes] : notes };
  }
  const failed = Object.entries(validity).filter(([, value]) => value === 'fail').map(([key]) => key);
  if (failed.length > 0) return { outcome: 'invalid', failureCategory: failed.includes('baseline_unchanged') || failed.includes('parent_frozen') || failed.includes('siblings_isolated') ? 'isolation_refused' : 'task_failed', validity, counts, notes };
  return { outcome: 'ok', failureCategory: null, validity, counts, notes };
}
