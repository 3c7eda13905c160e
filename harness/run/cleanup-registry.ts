/**
 * Every resource the harness creates is registered here with its kind and run id, and released
 * in reverse order at the end of a trial, of the run, or on SIGINT/SIGTERM/uncaught error.
 * Names on the system carry the run id too (container label `sandbench.run_id`, cgroup and
 * temp-dir names starting `sandbench-<run-id>`), so `sandbench clean` finds leftovers of runs
 * that were killed with -9 and never touches anything it did not create.
 */
export type ResourceKind = 'container' | 'image' | 'vm' | 'mount' | 'cgroup' | 'tempdir' | 'process' | 'daemon' | 'server';

export interface ResourceHandle {
  readonly id: number;
  readonly kind: ResourceKind;
  readonly name: string;
}

interface Entry extends ResourceHandle {
  release: () => Promise<void> | void;
}

/** Label key put on containers and images the harness creates. */
export const RUN_LABEL = 'sandbench.run_id';
/** Environment variable that tags a helper process with its run id, for `clean` (a helper may name nothing else in argv or cwd). */
export const RUN_ID_ENV = 'SANDBENCH_RUN_ID';

export class CleanupRegistry {
  private readonly entries = new Map<number, Entry>();
  private nextId = 1;

  constructor(readonly runId: string) {}

  register(kind: ResourceKind, name: string, release: () => Promise<void> | void): ResourceHandle {
    const entry: Entry = { id: this.nextId++, kind, name, release };
    this.entries.set(entry.id, entry);
    return entry;
  }

  /** Release one resource now (normal path) and forget it. Errors propagate. */
  async release(handle: ResourceHandle): Promise<void> {
    const entry = this.entries.get(handle.id);
    if (!entry) return;
    this.entries.delete(handle.id);
    await entry.release();
  }

  /** Forget without releasing (the resource was consumed elsewhere). */
  forget(handle: ResourceHandle): void {
    this.entries.delete(handle.id);
  }

  pending(): ResourceHandle[] {
    return [...this.entries.values()].map(({ id, kind, name }) => ({ id, kind, name }));
  }

  /** Release everything, newest first; never throws, returns the failures. */
  async releaseAll(): Promise<{ handle: ResourceHandle; error: string }[]> {
    const failures: { handle: ResourceHandle; error: string }[] = [];
    const newestFirst = [...this.entries.values()].sort((a, b) => b.id - a.id);
    for (const entry of newestFirst) {
      this.entries.delete(entry.id);
      try {
        await entry.release();
      } catch (error) {
        failures.push({ handle: entry, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return failures;
  }
}
