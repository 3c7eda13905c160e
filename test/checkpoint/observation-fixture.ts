/** A complete, passing checkpoint observation for the pure tests; each test breaks one thing. */
import type { CheckpointObservation } from '../../experiments/checkpoint/checkpoint-observation.ts';
import { divergence, rolloutPlan, sha16 } from '../../experiments/checkpoint/state-program.ts';

export function passingObservation(preserves: 'files' | 'files+process', children = 3, seed = 7): CheckpointObservation {
  const plan = rolloutPlan(seed, 4);
  const parentView = { counter: plan.counter, token: 'tok', structure: 'struct', tree: 'tree-at-checkpoint', files: 6 };
  const expectedShas = Object.fromEntries(plan.edits.map((edit) => [edit.path, sha16(edit.data)]));
  return {
    backend: preserves === 'files' ? 'staged' : 'podman',
    variant: null,
    preserves,
    children,
    infra: null,
    parent: { view: parentView, shas: { ...expectedShas, [plan.bigFile.path]: 'bigsha' }, deletedPresent: '0' },
    expected: { counter: plan.counter, shas: expectedShas, deleted: plan.deletes, bigFile: plan.bigFile.path },
    checkpointMs: 100,
    parentPaused: true,
    diskBytes: 4_000_000,
    memoryBytes: preserves === 'files' ? 0 : 10_000_000,
    imageFacts: {},
    fanoutMs: 500,
    childObservations: Array.from({ length: children }, (_, index) => {
      const before = preserves === 'files' ? { ...parentView, counter: 0, token: `fresh${index}`, structure: `fresh${index}` } : { ...parentView };
      const d = divergence(seed, index);
      return {
        index,
        error: null,
        restoreCmdMs: 200,
        restoreMs: 300 + index,
        before,
        ownSha: sha16(d.ownData),
        siblingsSeen: 0,
        sharedSha: sha16(d.sharedData),
        counterAfter: before.counter + 1,
        memory: { pssKiB: 15000, sharedKiB: 5000, privateKiB: 10000, rssKiB: 20000, processes: 1 },
        facts: {},
      };
    }),
    frozenBefore: 'frozen',
    frozenAfter: 'frozen',
    baselineBefore: 'base',
    baselineAfter: 'base',
    divergence: Array.from({ length: children }, (_, index) => {
      const d = divergence(seed, index);
      return { ownSha: sha16(d.ownData), sharedSha: sha16(d.sharedData) };
    }),
    cleanupErrors: [],
  };
}
