/**
 * The layer rule (docs/architecture.md): harness/ imports nothing above it; executors/, services/
 * and reports/ import only harness/; experiments/ import harness/, executors/ and services/; only
 * cli/ wires everything. Type-only, side-effect and dynamic imports count as edges too.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LAYER_RULE, layerViolations, tsFiles } from './import-graph.ts';

const ROOT = resolve(import.meta.dirname, '../..');

describe('layers only point down', () => {
  for (const layer of Object.keys(LAYER_RULE)) {
    it(`${layer}/ imports only ${LAYER_RULE[layer]!.length > 0 ? LAYER_RULE[layer]!.join(', ') : 'itself'} (and libraries)`, () => {
      const files = tsFiles(ROOT, layer);
      expect(files.length).toBeGreaterThan(3);
      expect(layerViolations(ROOT, files)).toEqual([]);
    });
  }

  it('no generic module names a kind or reads a kind\'s spec section: that lives in the kind\'s folder', async () => {
    const { EXPERIMENTS } = await import('../../experiments/registry.ts');
    const kinds = Object.keys(EXPERIMENTS);
    const sectionKeys = Object.values(EXPERIMENTS).flatMap((kind) => (kind.spec.section ? [kind.spec.section.key] : []));
    expect(kinds.length).toBeGreaterThanOrEqual(9);
    const generic = [...tsFiles(ROOT, 'harness'), ...tsFiles(ROOT, 'reports')];
    const offenders = generic.flatMap((file) => {
      const source = readSource(file);
      return [
        ...kinds.filter((kind) => new RegExp(`===\\s*'${kind}'|'${kind}'\\s*===`).test(source)).map((kind) => `${file} compares with '${kind}'`),
        ...sectionKeys.filter((key) => new RegExp(`\\bspec\\??\\.${key}\\b`).test(source)).map((key) => `${file} reads spec.${key}`),
      ];
    });
    expect(offenders).toEqual([]);
  });
});

describe('backends describe themselves', () => {
  it('no kind, generic module or command compares with a backend name or lists backend names: traits say it', async () => {
    const { BUILTIN_CATALOG } = await import('../../executors/registry.ts');
    const names = BUILTIN_CATALOG.names;
    expect(names.length).toBeGreaterThanOrEqual(7);
    const quoted = names.map((name) => `'${name}'`).join('|');
    const comparison = new RegExp(`[!=]==\\s*(${quoted})|(${quoted})\\s*[!=]==`);
    // Two or more backend names in one array or set literal: a name list standing for a capability.
    const nameList = new RegExp(`\\[[^\\]\\n]*(${quoted})[^\\]\\n]*(${quoted})[^\\]\\n]*\\]`);
    const files = ['harness', 'experiments', 'reports', 'cli'].flatMap((layer) => tsFiles(ROOT, layer));
    const offenders = files.flatMap((file) => {
      const source = readSource(file);
      return [...(comparison.test(source) ? [`${file} compares with a backend name`] : []), ...(nameList.test(source) ? [`${file} lists backend names`] : [])];
    });
    expect(offenders).toEqual([]);
  });
});

describe('the checker can fail', () => {
  const fixture = mkdtempSync(join(tmpdir(), 'sandbench-layer-rule-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(fixture, path)), { recursive: true });
    writeFileSync(join(fixture, path), text);
  };

  it('flags value, type-only, side-effect and dynamic upward imports, and allows downward ones', () => {
    write('executors/e.ts', "import { h } from '../harness/h.ts';\nexport const e = h;\n");
    write('harness/h.ts', "export const h = 1;\n");
    write('harness/value.ts', "import { e } from '../executors/e.ts';\n");
    write('harness/types.ts', "import type { E } from '../experiments/k.ts';\n");
    write('harness/effect.ts', "import '../experiments/k.ts';\n");
    write('reports/dynamic.ts', "const m = await import('../executors/e.ts');\n");
    write('experiments/k.ts', "import { e } from '../executors/e.ts';\nexport type E = typeof e;\n");
    const all = ['executors/e.ts', 'harness/h.ts', 'harness/value.ts', 'harness/types.ts', 'harness/effect.ts', 'reports/dynamic.ts', 'experiments/k.ts'];
    expect(layerViolations(fixture, all).sort()).toEqual([
      'harness/effect.ts -> experiments/k.ts',
      'harness/types.ts -> experiments/k.ts (type-only)',
      'harness/value.ts -> executors/e.ts',
      'reports/dynamic.ts -> executors/e.ts',
    ]);
  });
});

function readSource(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}
