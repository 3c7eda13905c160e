/**
 * The dependency rule (architecture doc): reports/ reads finished bundles only. No module reachable
 * from reports/ (or from the report/compare/gate/reproduce commands) imports executors/ or a
 * process-spawning module. Follows relative value imports transitively; `import type` is erased
 * at run time and is skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
/** No exceptions: the backend-name list lives in harness/backends.ts, so the spec schema needs no executor import. */
const ALLOWED_EDGES = new Set<string>();
/**
 * The commands get the kind descriptors through cli/kinds.ts, the composition root's lazy load of
 * the one kind registry (each kind's run and analysis halves together). Traversal stops there: what
 * reports/ and the commands themselves import must still never reach executors.
 */
const COMPOSITION_ROOT = new Set([
  resolve(ROOT, 'cli/kinds.ts'),
  // `reproduce --campaign` runs experiments: its runner (loaded lazily by that flag alone) starts one
  // `sandbench run` child per entry. The join and every rendering it then does stay on this side.
  resolve(ROOT, 'cli/campaign/run-campaign.ts'),
]);
const FORBIDDEN_MODULES = ['node:child_process', 'child_process', 'execa', 'node:cluster', 'cluster', 'playwright-core'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? tsFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function valueImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of source.matchAll(/^\s*(import|export)\s+(type\s+)?([^'"]*?)\s*from\s*['"]([^'"]+)['"]/gm)) {
    if (m[2]) continue;
    specs.push(m[4]!);
  }
  for (const m of source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) specs.push(m[1]!);
  for (const m of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]!);
  return specs;
}

function violations(entries: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const spec of valueImports(file)) {
      if (FORBIDDEN_MODULES.includes(spec)) out.push(`${relative(ROOT, file)} imports ${spec}`);
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const edge = `${relative(ROOT, file)} -> ${relative(ROOT, target)}`;
      if (relative(ROOT, target).startsWith('executors') && !ALLOWED_EDGES.has(edge)) out.push(edge);
      if (existsSync(target) && !COMPOSITION_ROOT.has(target)) queue.push(target);
    }
  }
  return out;
}

describe('reports never reach executors or spawn processes', () => {
  it('holds for reports/** and the report, compare, gate and reproduce commands', () => {
    const commands = ['report', 'compare', 'gate', 'reproduce'].map((c) => join(ROOT, 'cli/commands', `${c}.ts`)).filter(existsSync);
    const entries = [...tsFiles(join(ROOT, 'reports')), ...commands];
    expect(entries.length).toBeGreaterThan(10);
    expect(violations(entries)).toEqual([]);
  });

  it('detects a violation (the checker can fail)', () => {
    expect(violations([join(ROOT, 'executors/spawn-trial.ts')]).length).toBeGreaterThan(0);
  });
});
