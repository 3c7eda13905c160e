/**
 * A cell's per-attempt scratch, removed in batches. An attempt's scratch dir is renamed into a batch
 * dir of the cell's trash (one rename on the thread pool; its path is free at once, so a retry of the
 * attempt finds it empty), and one `rm -rf` through the launcher removes each full batch.
 *
 * Why: one launcher round trip costs the harness 0.31–0.41 ms of CPU whatever it runs
 * (harness-steps, `runHelper(true)`), and every attempt paid one for its own `rm -rf`. The files
 * are the same and are still removed by the launcher's `rm`, whose CPU is a helper child's, as before.
 */
import { mkdirSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from '../../executors/workspace-diff.ts';

/** Attempts per `rm -rf`: the round trip is amortized, and a batch is never far behind its attempts. */
export const SCRATCH_BATCH = 32;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class ScratchReaper {
  private batch = -1;
  private issued = 0;
  /** Renames finished per batch: a batch is removed once all of its renames landed, never while one is in flight. */
  private readonly landed = new Map<number, number>();
  private readonly removals: Promise<void>[] = [];
  private readonly failures: string[] = [];

  constructor(private readonly trashDir: string, private readonly batchSize = SCRATCH_BATCH) {}

  /** Remove `dir` (an attempt's scratch) with the next batch. */
  async discard(dir: string): Promise<void> {
    if (this.batch < 0 || this.issued === this.batchSize) this.openBatch();
    const batch = this.batch;
    const slot = this.issued++;
    try {
      await rename(dir, join(this.batchDir(batch), String(slot)));
    } catch (error) {
      // Not renamed (gone already, or another filesystem): removed alone, as before batching.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') await removeTree(dir).catch((failure) => this.failures.push(`${dir}: ${errorText(failure)} (after rename: ${errorText(error)})`));
    }
    const landed = (this.landed.get(batch) ?? 0) + 1;
    this.landed.set(batch, landed);
    if (landed === this.batchSize) this.remove(batch);
  }

  /** Remove what is left (call once no discard is in flight); the failures, if any, name the dirs left behind. */
  async close(): Promise<string[]> {
    for (const batch of this.landed.keys()) if (this.landed.get(batch)! < this.batchSize) this.remove(batch);
    await Promise.all(this.removals);
    await removeTree(this.trashDir).catch((error) => this.failures.push(`${this.trashDir}: ${errorText(error)}`));
    return this.failures;
  }

  private openBatch(): void {
    this.batch += 1;
    this.issued = 0;
    mkdirSync(this.batchDir(this.batch), { recursive: true });
  }

  private batchDir(batch: number): string {
    return join(this.trashDir, `b${batch}`);
  }

  private remove(batch: number): void {
    this.landed.set(batch, Number.POSITIVE_INFINITY);
    this.removals.push(removeTree(this.batchDir(batch)).catch((error) => void this.failures.push(`${this.batchDir(batch)}: ${errorText(error)}`)));
  }
}
