/**
 * Every import edge of a TypeScript tree — value, type-only, re-export, side-effect and dynamic
 * imports alike — resolved to repository-relative paths, and the layer rule of
 * docs/architecture.md checked over them. Shared by the layer-rule test and its failing case.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

export interface ImportEdge {
  from: string;
  /** Repository-relative target for relative specifiers, the bare specifier otherwise. */
  to: string;
  typeOnly: boolean;
}

export function tsFiles(root: string, dir: string): string[] {
  const abs = join(root, dir);
  return readdirSync(abs).flatMap((name) => {
    const path = join(abs, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : tsFiles(root, relative(root, path));
    return /\.(ts|mts)$/.test(name) ? [relative(root, path)] : [];
  });
}

const PATTERNS: { re: RegExp; typeOnly: (m: RegExpMatchArray) => boolean }[] = [
  // import x from '...', import type {X} from '...', export {x} from '...', export * from '...'
  { re: /^\s*(?:import|export)\s+(type\s+)?[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm, typeOnly: (m) => Boolean(m[1]) },
  // import '...'  (side effects)
  { re: /^\s*import\s*['"]([^'"]+)['"]/gm, typeOnly: () => false },
  // import('...') and typeof import('...')
  { re: /import\(\s*['"]([^'"]+)['"]\s*\)/g, typeOnly: () => false },
];

export function importEdges(root: string, file: string): ImportEdge[] {
  const source = readFileSync(join(root, file), 'utf8');
  const edges: ImportEdge[] = [];
  for (const { re, typeOnly } of PATTERNS) {
    for (const m of source.matchAll(re)) {
      const spec = m[m.length - 1]!;
      const to = spec.startsWith('.') ? relative(root, resolve(dirname(join(root, file)), spec)) : spec;
      edges.push({ from: file, to, typeOnly: typeOnly(m) });
    }
  }
  return edges;
}

/** Top-level folder → the top-level folders it may import (besides itself). cli/, test/, bench/ may import anything. */
export const LAYER_RULE: Record<string, readonly string[]> = {
  harness: [],
  executors: ['harness'],
  services: ['harness'],
  reports: ['harness'],
  experiments: ['harness', 'executors', 'services'],
};

const LAYERED_FOLDERS = ['harness', 'executors', 'services', 'experiments', 'reports', 'cli', 'bench', 'test', 'bin', 'data', 'scripts', 'launcher'];

export function layerViolations(root: string, files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const layer = file.split(sep)[0]!;
    const allowed = LAYER_RULE[layer];
    if (!allowed) continue;
    for (const edge of importEdges(root, file)) {
      const target = edge.to.split(sep)[0]!;
      if (!LAYERED_FOLDERS.includes(target) || target === layer || allowed.includes(target)) continue;
      out.push(`${edge.from} -> ${edge.to}${edge.typeOnly ? ' (type-only)' : ''}`);
    }
  }
  return out;
}
