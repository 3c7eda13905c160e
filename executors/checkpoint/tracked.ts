/**
 * Per-trial resources of a mechanism, each registered with the run's cleanup registry (so an
 * interrupted run releases them) and released in reverse order by discard().
 */
import type { CleanupRegistry, ResourceHandle, ResourceKind } from '../../harness/run/cleanup-registry.ts';

export class TrialResources {
  private readonly handles: ResourceHandle[] = [];
  constructor(private readonly cleanup: CleanupRegistry) {}

  add(kind: ResourceKind, name: string, release: () => Promise<void> | void): ResourceHandle {
    const handle = this.cleanup.register(kind, name, release);
    this.handles.push(handle);
    return handle;
  }

  async release(handle: ResourceHandle): Promise<void> {
    const index = this.handles.indexOf(handle);
    if (index < 0) return;
    this.handles.splice(index, 1);
    await this.cleanup.release(handle);
  }

  /** Newest first: children before the checkpoint image, the image before the trial directory. */
  async releaseAll(): Promise<string[]> {
    const errors: string[] = [];
    while (this.handles.length > 0) {
      const handle = this.handles.pop()!;
      try {
        await this.cleanup.release(handle);
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
    return errors;
  }
}
