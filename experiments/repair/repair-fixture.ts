/**
 * The repair fixture, generated at run time from data/fixtures/repair: the buggy `ranges` package
 * with its failing unittest suite, the fix patch and the tool-plan payload under .sandbench/,
 * committed as one deterministic commit (same sources → same commit id, recorded per trial).
 */
import { copyFileSync, cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { commitDeterministicRepo } from './deterministic-repo.ts';

export const REPAIR_SOURCES = join(PROJECT_ROOT, 'data', 'fixtures', 'repair');
/** The file the patch fixes, relative to /workspace. */
export const FIXED_FILE = 'ranges/merge.py';
export const BUGGY_LINE = 'if merged and start <= merged[-1][1]:';
export const FIXED_LINE = 'if merged and start <= merged[-1][1] + 1:';
export const TOOL_PLAN = '.sandbench/tool-plan.sh';

export async function writeRepairBaseline(dir: string, epoch: number): Promise<string> {
  cpSync(join(REPAIR_SOURCES, 'repo'), dir, { recursive: true });
  mkdirSync(join(dir, '.sandbench'), { recursive: true });
  copyFileSync(join(REPAIR_SOURCES, 'fix.patch'), join(dir, '.sandbench', 'fix.patch'));
  copyFileSync(join(REPAIR_SOURCES, 'tool-plan.sh'), join(dir, TOOL_PLAN));
  if (!readFileSync(join(dir, FIXED_FILE), 'utf8').includes(BUGGY_LINE)) throw new Error(`repair fixture: ${FIXED_FILE} does not carry the bug`);
  return commitDeterministicRepo(dir, 'ranges: merge overlapping ranges', epoch);
}

export type FixState = 'fixed' | 'buggy' | 'other' | 'absent';

export function fixState(content: Buffer | string | null): FixState {
  if (content === null) return 'absent';
  const text = content.toString();
  if (text.includes(FIXED_LINE)) return 'fixed';
  if (text.includes(BUGGY_LINE)) return 'buggy';
  return 'other';
}
