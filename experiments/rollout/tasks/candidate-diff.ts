/**
 * The candidate of a workspace that was changed in place on the host: what differs from the
 * baseline (added or modified files, removed files), copied out to `outDir`. The executors collect
 * candidates their own way; this one serves host-side checks (the task tests apply scripted paths
 * to a copy of the baseline) and any caller that has two directories.
 */
import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CandidateFiles } from '../task-contract.ts';

function listFiles(root: string, skip: (rel: string) => boolean, dir = '', out = new Map<string, 'file' | 'link'>()): Map<string, 'file' | 'link'> {
  for (const name of readdirSync(join(root, dir)).sort()) {
    const rel = dir ? `${dir}/${name}` : name;
    if (skip(rel)) continue;
    const stat = lstatSync(join(root, rel));
    if (stat.isDirectory()) listFiles(root, skip, rel, out);
    else out.set(rel, stat.isSymbolicLink() ? 'link' : 'file');
  }
  return out;
}

function same(a: string, b: string, kind: 'file' | 'link'): boolean {
  if (kind === 'link') return readlinkSync(a) === readlinkSync(b);
  const sa = lstatSync(a);
  const sb = lstatSync(b);
  return sa.size === sb.size && (sa.mode & 0o111) === (sb.mode & 0o111) && readFileSync(a).equals(readFileSync(b));
}

export function diffCandidate(baselineDir: string, workDir: string, outDir: string, skip: (rel: string) => boolean = (rel) => rel === '.git'): CandidateFiles {
  const before = listFiles(baselineDir, skip);
  const after = listFiles(workDir, skip);
  const changed: string[] = [];
  for (const [rel, kind] of after) {
    const old = before.get(rel);
    if (old === kind && same(join(baselineDir, rel), join(workDir, rel), kind)) continue;
    changed.push(rel);
    const target = join(outDir, rel);
    mkdirSync(dirname(target), { recursive: true });
    if (kind === 'link') symlinkSync(readlinkSync(join(workDir, rel)), target);
    else copyFileSync(join(workDir, rel), target);
  }
  const deleted = [...before.keys()].filter((rel) => !after.has(rel));
  mkdirSync(outDir, { recursive: true });
  return { dir: outDir, changed, deleted };
}
