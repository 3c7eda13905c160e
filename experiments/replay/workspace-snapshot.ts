/**
 * Content digest of a directory tree: every entry's relative path, type, mode and (for files) sha256
 * of the bytes, (for symlinks) the target. Two snapshots are equal iff the inventory and every byte
 * are equal, which is what "the workspace is unchanged" means for the replay audit.
 */
import { createHash } from 'node:crypto';
import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface WorkspaceSnapshot {
  /** sha256 over the sorted inventory lines. */
  digest: string;
  /** `path<TAB>type mode [sha256|target]`, sorted by path. */
  entries: string[];
}

export async function snapshotWorkspace(root: string): Promise<WorkspaceSnapshot> {
  const entries: string[] = [];
  const walk = async (relative: string) => {
    const names = (await readdir(join(root, relative))).sort();
    for (const name of names) {
      const rel = relative ? `${relative}/${name}` : name;
      const abs = join(root, rel);
      const info = await lstat(abs);
      const mode = (info.mode & 0o7777).toString(8);
      if (info.isDirectory()) {
        entries.push(`${rel}\tdir ${mode}`);
        await walk(rel);
      } else if (info.isSymbolicLink()) {
        entries.push(`${rel}\tsymlink ${mode} ${await readlink(abs)}`);
      } else if (info.isFile()) {
        entries.push(`${rel}\tfile ${mode} ${createHash('sha256').update(await readFile(abs)).digest('hex')}`);
      } else {
        entries.push(`${rel}\tother ${mode}`);
      }
    }
  };
  await walk('');
  return { digest: createHash('sha256').update(entries.join('\n')).digest('hex'), entries };
}

/** Paths present in one snapshot and not the other, or present in both with different content. */
export function snapshotDifference(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const beforeSet = new Set(before.entries);
  const afterSet = new Set(after.entries);
  const pathOf = (entry: string) => entry.split('\t')[0]!;
  const changed = new Set<string>();
  for (const entry of before.entries) if (!afterSet.has(entry)) changed.add(pathOf(entry));
  for (const entry of after.entries) if (!beforeSet.has(entry)) changed.add(pathOf(entry));
  return [...changed].sort();
}
