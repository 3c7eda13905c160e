/** What one checkpoint trial observed: plain data, so judging it is a pure function (checkpoint-judge.ts). */
import type { Preserved } from '../../executors/checkpoint/mechanism.ts';
import type { MemoryUse } from '../../executors/checkpoint/pss.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';

export interface ProcessView {
  counter: number;
  token: string;
  structure: string;
  /** Tree digest of /workspace as the process sees it (excluding .sandbench/). */
  tree: string;
  files: number;
}

export interface ChildObservation {
  index: number;
  /** Why it never answered (restore refused, timed out, crashed); null when it did. */
  error: string | null;
  /** restore() start → the mechanism returned a handle (podman restore exited, VM spawned). */
  restoreCmdMs: number | null;
  /** restore() start → the child's state process answered: restore-to-ready. */
  restoreMs: number | null;
  /** Right after ready, before any child wrote. */
  before: ProcessView | null;
  /** After every child diverged. */
  ownSha: string | null;
  siblingsSeen: number | null;
  sharedSha: string | null;
  counterAfter: number | null;
  memory: MemoryUse | null;
  facts: Record<string, unknown>;
}

export interface ParentObservation {
  view: ProcessView;
  /** sha16 of each edited small file as the parent sees it, and of the large file. */
  shas: Record<string, string | null>;
  /** Deleted paths still present ("1") or gone ("0"), in plan order. */
  deletedPresent: string;
}

export interface CheckpointObservation {
  backend: string;
  variant: string | null;
  preserves: Preserved;
  children: number;
  /** Set when the trial broke before the children could be judged. */
  infra: { category: FailureCategory; reason: string } | null;
  parent: ParentObservation | null;
  /** Host-side expectations from the seed. */
  expected: { counter: number; shas: Record<string, string>; deleted: string[]; bigFile: string };
  checkpointMs: number | null;
  parentPaused: boolean | null;
  diskBytes: number | null;
  memoryBytes: number | null;
  imageFacts: Record<string, unknown>;
  fanoutMs: number | null;
  childObservations: ChildObservation[];
  /** The frozen parent state's digest after the checkpoint and after every child diverged. */
  frozenBefore: string | null;
  frozenAfter: string | null;
  baselineBefore: string;
  baselineAfter: string | null;
  /** Expected divergence data per child (host-side). */
  divergence: { ownSha: string; sharedSha: string }[];
  cleanupErrors: string[];
}
