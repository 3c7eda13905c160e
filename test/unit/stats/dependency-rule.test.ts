/** Architecture rule: statistics and analysis are pure over arrays/bundles — no executors, no processes. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}
const importsOf = (file: string) => [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)[^'"]*from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? m[2]!);

describe('dependency rule', () => {
  it('harness/stats imports no file system, process, executor or analyze module', () => {
    for (const file of sources('harness/stats')) {
      for (const spec of importsOf(file)) expect(spec, `${file} imports ${spec}`).not.toMatch(/node:fs|node:child_process|execa|executors\/|\/analyze\/|\/cli\//);
    }
  });

  it('harness/analyze never imports executors, experiments or process spawning', () => {
    for (const file of sources('harness/analyze')) {
      for (const spec of importsOf(file)) expect(spec, `${file} imports ${spec}`).not.toMatch(/node:child_process|execa|executors\/|experiments\/.*(?<!analysis)\.ts$/);
    }
  });

  it("the kinds' analysis halves stay pure too (no executors, no processes, no file system)", () => {
    const analyses = readdirSync('experiments', { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join('experiments', e.name)).filter((f) => f.endsWith('-analysis.ts')) : []));
    expect(analyses.length).toBeGreaterThanOrEqual(4);
    for (const file of analyses) {
      for (const inner of importsOf(file)) expect(inner, `${file} imports ${inner}`).not.toMatch(/node:child_process|node:fs|execa|executors\/|services\//);
    }
  });
});
