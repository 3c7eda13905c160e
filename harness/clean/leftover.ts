/**
 * What `sandbench clean` and `run --resume` remove: one leftover resource of a dead run, found by its
 * sandbench name or label only. Backend-specific finders (containers, a private dockerd) live with
 * their executors and are handed in by the composition root as `LeftoverSource`s, so harness/clean
 * never imports the executor layer.
 */
export type LeftoverKind = 'container' | 'vm' | 'process' | 'mount' | 'cgroup' | 'daemon' | 'tempdir' | 'lock';

export interface Leftover {
  kind: LeftoverKind;
  id: string;
  runId: string;
  remove: () => Promise<void>;
}

/** A backend's finder: every resource it can name as sandbench's, with the run id it belongs to (or UNKNOWN_RUN). */
export interface LeftoverSource {
  /** For messages, e.g. "podman containers". */
  readonly name: string;
  find(stateDir: string): Promise<Leftover[]>;
}
