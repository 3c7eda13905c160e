/** sha256 over a directory's files (sorted relative paths, executable bit, bytes): the cache key of what a baseline is built from. */
import { createHash, type Hash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

function walk(root: string, dir: string, hash: Hash): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    const rel = relative(root, path);
    if (stat.isDirectory()) walk(root, path, hash);
    else if (stat.isSymbolicLink()) hash.update(`link ${rel}\0${readlinkSync(path)}\0`);
    else hash.update(`file ${rel} ${stat.mode & 0o111 ? 'x' : '-'} ${stat.size}\0`).update(readFileSync(path));
  }
}

export function treeDigest(dir: string, hash: Hash = createHash('sha256')): Hash {
  walk(dir, dir, hash);
  return hash;
}
