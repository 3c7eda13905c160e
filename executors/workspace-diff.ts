/**
 * Workspace helpers shared by every backend: copying a baseline, hashing a tree (to prove the host
 * original is byte-identical after a staged trial), and diffing a written copy against its baseline.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

export interface TreeEntry {
  type: 'file' | 'dir' | 'symlink' | 'other';
  mode: number;
  /** sha256 of file bytes or symlink target; '' for dirs. */
  digest: string;
}

/** Inventory of a tree: relative path → entry. Ownership and mtimes are ignored (bytes and modes matter). */
export function inventory(root: string): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  const walk = (relative: string) => {
    const absolute = relative ? join(root, relative) : root;
    for (const name of readdirSync(absolute).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      const stat = lstatSync(join(root, rel));
      const mode = stat.mode & 0o7777;
      if (stat.isDirectory()) {
        entries.set(rel, { type: 'dir', mode, digest: '' });
        walk(rel);
      } else if (stat.isSymbolicLink()) {
        entries.set(rel, { type: 'symlink', mode, digest: sha256(readlinkSync(join(root, rel))) });
      } else if (stat.isFile()) {
        entries.set(rel, { type: 'file', mode, digest: sha256(readFileSync(join(root, rel))) });
      } else {
        entries.set(rel, { type: 'other', mode, digest: '' });
      }
    }
  };
  walk('');
  return entries;
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** One digest for a whole tree: equal digests ⇔ same paths, types, modes and bytes. */
export function treeDigest(root: string): string {
  const hash = createHash('sha256');
  for (const [path, entry] of inventory(root)) hash.update(`${path}\0${entry.type}\0${entry.mode}\0${entry.digest}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/** Relative paths that differ between two trees (sorted); paths gone from `candidate` end with " (deleted)". */
export function diffInventories(baseline: Map<string, TreeEntry>, candidate: Map<string, TreeEntry>): string[] {
  const changed: string[] = [];
  for (const [path, entry] of candidate) {
    const before = baseline.get(path);
    if (!before || before.type !== entry.type || before.digest !== entry.digest || before.mode !== entry.mode) {
      if (entry.type !== 'dir' || !before) changed.push(path);
    }
  }
  for (const path of baseline.keys()) if (!candidate.has(path)) changed.push(`${path} (deleted)`);
  return changed.sort();
}

export async function diffWorkspaces(baseline: string, candidate: string): Promise<string[]> {
  return diffInventories(inventory(baseline), inventory(candidate));
}

/** Copy a baseline workspace (preserving modes, links and timestamps) into a fresh directory. */
export async function copyWorkspace(source: string, destination: string): Promise<void> {
  mkdirSync(destination, { recursive: true });
  await execa('cp', ['-a', `${source}/.`, destination]);
}
