/**
 * Is a bundle's data complete and untouched? A gate must never pass on missing data, so every
 * planned formal trial must have its journal line, trial ids must be unique, and the journal must
 * still hash to what manifest.json recorded (when it recorded it).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import type { Bundle } from '../../harness/bundle/read.ts';

/** The sha256 manifest.json recorded for a file, whatever its layout ({files: {name: hash}}, {files: [{path, sha256}]}, ...). */
export function recordedHash(manifest: Record<string, unknown> | null, fileName: string): string | null {
  if (!manifest) return null;
  const hex = (v: unknown) => (typeof v === 'string' && /^(sha256:)?[0-9a-f]{64}$/i.test(v) ? v.replace(/^sha256:/i, '').toLowerCase() : null);
  let found: string | null = null;
  const walk = (node: unknown, depth: number) => {
    if (found || depth > 5 || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach((n) => walk(n, depth + 1));
    const record = node as Record<string, unknown>;
    if ((record.path === fileName || record.file === fileName || record.name === fileName) && (hex(record.sha256) ?? hex(record.digest) ?? hex(record.hash))) {
      found = hex(record.sha256) ?? hex(record.digest) ?? hex(record.hash);
      return;
    }
    if (fileName in record) {
      const value = record[fileName];
      const direct = hex(value) ?? (value && typeof value === 'object' ? hex((value as Record<string, unknown>).sha256) : null);
      if (direct) {
        found = direct;
        return;
      }
    }
    for (const child of Object.values(record)) walk(child, depth + 1);
  };
  walk(manifest, 0);
  return found;
}

export function integrityProblems(bundle: Bundle): string[] {
  const problems: string[] = [];
  const where = bundle.dir;
  if (bundle.journalWarning) problems.push(`${where}: ${bundle.journalWarning}`);
  const formal = bundle.journal.filter((r) => !r.warmup);
  if (formal.length === 0) problems.push(`${where}: the journal has no formal trials`);
  const ids = new Map<string, number>();
  for (const r of formal) ids.set(r.trial_id, (ids.get(r.trial_id) ?? 0) + 1);
  const duplicated = [...ids].filter(([, count]) => count > 1).map(([id]) => id);
  if (duplicated.length > 0) problems.push(`${where}: trial ids recorded more than once: ${duplicated.slice(0, 5).join(', ')}${duplicated.length > 5 ? ', …' : ''}`);
  if (!bundle.plan) {
    problems.push(`${where}: plan.json is missing, so missing trials cannot be detected`);
  } else {
    const missing = bundle.plan.trials.filter((t) => !t.warmup && !ids.has(t.trial_id)).map((t) => t.trial_id);
    if (missing.length > 0) problems.push(`${where}: ${missing.length} planned formal trial(s) have no journal line (missing data): ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`);
  }
  const journalPath = join(bundle.dir, BUNDLE_FILES.journal);
  const recorded = recordedHash(bundle.manifest, BUNDLE_FILES.journal);
  if (recorded && existsSync(journalPath)) {
    const actual = createHash('sha256').update(readFileSync(journalPath)).digest('hex');
    if (actual !== recorded) problems.push(`${where}: journal.jsonl does not match the sha256 in manifest.json (edited after the run)`);
  }
  return problems;
}
