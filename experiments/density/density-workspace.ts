/**
 * The density baseline workspace: 64 small files under data/, a manifest of their sha256, and the
 * worker script, committed as one deterministic git repository. Every worker gets its own copy
 * (or copy-on-write stage) of it from its executor.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { commitDeterministicRepo } from '../repair/deterministic-repo.ts';

export const DENSITY_FILES = 64;
export const WORKER_SCRIPT = 'density_worker.py';
export const WORKER_SOURCE = join(PROJECT_ROOT, 'data', 'fixtures', 'density', WORKER_SCRIPT);

function fileContent(index: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 16; line++) lines.push(`density fixture file ${index} line ${line}`);
  return `${lines.join('\n')}\n`;
}

/** Writes and commits the baseline into `dir`; returns the commit id (recorded in facts). */
export async function writeDensityBaseline(dir: string, epoch: number): Promise<string> {
  mkdirSync(join(dir, 'data'), { recursive: true });
  const manifest: Record<string, string> = {};
  for (let i = 0; i < DENSITY_FILES; i++) {
    const name = `data/f${String(i).padStart(2, '0')}.txt`;
    const content = fileContent(i);
    writeFileSync(join(dir, name), content);
    manifest[name] = createHash('sha256').update(content).digest('hex');
  }
  writeFileSync(join(dir, 'density-manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  copyFileSync(WORKER_SOURCE, join(dir, WORKER_SCRIPT));
  return commitDeterministicRepo(dir, 'density fixture', epoch);
}
