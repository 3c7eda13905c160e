/**
 * Issue 35 (6): no documentation path is dead. Every backticked span in README.md and docs/**.md
 * that looks like a repository path (it starts with a top-level folder or file of the repository,
 * e.g. `harness/spec/schema.ts`, `experiments/specs/quick.yaml`) must exist, and so must every
 * relative markdown link. Placeholders (`experiments/<kind>/`) and globs (`bench/*.ts`) are checked
 * up to their first variable part.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

/** Top-level entries a path can start with: the repository's own (generated and ignored ones are not documentation targets). */
const TOP_LEVEL = new Set(readdirSync(PROJECT_ROOT).filter((name) => !name.startsWith('.') && !['node_modules', 'dist', 'runs'].includes(name)));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const DOCS = [join(PROJECT_ROOT, 'README.md'), ...markdownFiles(join(PROJECT_ROOT, 'docs'))];

/** The part of a path up to its first placeholder or glob, or null when it does not look like a repository path. */
function repositoryPath(span: string): string | null {
  const cleaned = span.replace(/^\.\//, '').replace(/(:\d+(-\d+)?|[.,;:)]+)$/, '');
  if (/\s/.test(cleaned) || !/^[A-Za-z0-9_.-]+(\/|$)/.test(cleaned)) return null;
  const first = cleaned.split('/')[0]!;
  if (!TOP_LEVEL.has(first) || (first === cleaned && !cleaned.includes('.'))) return null;
  const variable = cleaned.search(/[<*{$[]|\.\.\./);
  const fixed = variable === -1 ? cleaned : cleaned.slice(0, variable);
  return fixed.includes('/') || variable === -1 ? fixed.replace(/\/[^/]*$/, (tail) => (variable === -1 ? tail : '/')) : null;
}

function spansOf(text: string): string[] {
  // Fenced blocks are commands and samples, not references.
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
}

function linksOf(text: string): string[] {
  return [...text.replace(/```[\s\S]*?```/g, '').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'));
}

describe('every repository path named in the docs exists', () => {
  it('recognises paths, placeholders and globs, and leaves prose alone', () => {
    expect(repositoryPath('harness/spec/schema.ts')).toBe('harness/spec/schema.ts');
    expect(repositoryPath('experiments/<kind>/')).toBe('experiments/');
    expect(repositoryPath('bench/*.ts')).toBe('bench/');
    expect(repositoryPath('README.md')).toBe('README.md');
    expect(repositoryPath('npm test')).toBeNull();
    expect(repositoryPath('--arms')).toBeNull();
    expect(repositoryPath('ready_ms')).toBeNull();
    expect(repositoryPath('runs/gate')).toBeNull();
    // What the old DEVELOPING.md named: caught.
    expect(spansOf('see `executors/executor.ts` and `harness/bundle-layout.ts`').map(repositoryPath).filter((p) => p && !existsSync(join(PROJECT_ROOT, p)))).toEqual(['executors/executor.ts', 'harness/bundle-layout.ts']);
  });

  for (const file of DOCS) {
    it(relative(PROJECT_ROOT, file), () => {
      const text = readFileSync(file, 'utf8');
      const dead = [
        ...spansOf(text).map(repositoryPath).filter((path): path is string => path !== null && !existsSync(join(PROJECT_ROOT, path))),
        ...linksOf(text).map((link) => link.split('#')[0]!).filter((link) => link !== '' && !existsSync(join(dirname(file), link))),
      ];
      expect(dead, `${relative(PROJECT_ROOT, file)} names paths that do not exist`).toEqual([]);
    });
  }
});
