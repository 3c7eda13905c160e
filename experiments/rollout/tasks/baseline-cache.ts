/**
 * Prepared task baselines live under the caller's cache directory, one entry per content digest
 * of what they are built from: built in a private temporary directory, then renamed into place,
 * so a crash leaves no half-built entry and concurrent runs each end with one complete copy.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const COMPLETE = 'complete.json';

export interface CacheEntry<M> {
  readonly dir: string;
  readonly meta: M;
  /** false when an existing entry was reused. */
  readonly built: boolean;
}

/**
 * The entry `key` under `root`: reused when complete, else `build(tmpDir)` fills a fresh directory
 * and returns the entry's metadata (written as complete.json, the completion mark).
 */
export async function cachedEntry<M>(root: string, key: string, build: (dir: string) => Promise<M>): Promise<CacheEntry<M>> {
  const dir = join(root, key);
  const marker = join(dir, COMPLETE);
  if (existsSync(marker)) return { dir, meta: JSON.parse(readFileSync(marker, 'utf8')) as M, built: false };
  mkdirSync(root, { recursive: true });
  const tmp = join(root, `.${key}.tmp-${process.pid}-${Date.now()}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const meta = await build(tmp);
    writeFileSync(join(tmp, COMPLETE), `${JSON.stringify(meta, null, 1)}\n`);
    // an incomplete directory under the final name (never made by this code) is replaced
    if (existsSync(dir) && !existsSync(marker)) rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(tmp, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ENOTEMPTY' || code === 'EEXIST') && existsSync(marker)) {
        rmSync(tmp, { recursive: true, force: true }); // another process finished first: use its copy
        return { dir, meta: JSON.parse(readFileSync(marker, 'utf8')) as M, built: false };
      }
      throw error;
    }
    return { dir, meta, built: true };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}
