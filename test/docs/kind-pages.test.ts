/**
 * Issue 35 (docs by task): every kind the registry has gets a page, docs/kinds/<kind>.md, naming an
 * example spec that exists, is a spec of that kind and loads, and docs/index.md links it. The kinds
 * come from the registry, so a new kind without its page fails here without anyone editing this test.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { EXPERIMENTS, loadKindSpec } from '../../experiments/registry.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

const pagePath = (kind: string) => join(PROJECT_ROOT, 'docs', 'kinds', `${kind}.md`);

/** Backticked repository paths of YAML files in a page's prose (fenced blocks are samples, not references). */
function specPathsOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/`([A-Za-z0-9_./-]+\.ya?ml)`/g)].map((m) => m[1]!);
}

/** What is wrong with a kind's page, or [] (the page text given, so the rule is testable on its own). */
function pageProblems(kind: string, text: string | null, root = PROJECT_ROOT): string[] {
  if (text === null) return [`docs/kinds/${kind}.md does not exist`];
  const examples = specPathsOf(text).filter((path) => {
    const file = join(root, path);
    if (!existsSync(file)) return false;
    const document: unknown = parseYaml(readFileSync(file, 'utf8'));
    return typeof document === 'object' && document !== null && (document as { experiment?: unknown }).experiment === kind;
  });
  return examples.length > 0 ? [] : [`docs/kinds/${kind}.md names no example spec of kind ${kind} that exists (give its path in backticks, e.g. \`experiments/specs/<name>.yaml\`)`];
}

describe('a page per kind', () => {
  it('the rule fails a missing page, a page without an example, a dead path and another kind\'s spec', () => {
    expect(pageProblems('shell-ready', null)).toEqual(['docs/kinds/shell-ready.md does not exist']);
    expect(pageProblems('shell-ready', '# shell-ready\n\nNo example here.\n')).toHaveLength(1);
    expect(pageProblems('shell-ready', 'Example: `experiments/specs/no-such-spec.yaml`.')).toHaveLength(1);
    expect(pageProblems('shell-ready', 'Example: `experiments/specs/repair.yaml`.')).toHaveLength(1);
    // A path only inside a fenced block is a sample, not the page's reference.
    expect(pageProblems('shell-ready', '```\n`experiments/specs/quick.yaml`\n```\n')).toHaveLength(1);
    expect(pageProblems('shell-ready', 'Example: `experiments/specs/quick.yaml`.')).toEqual([]);
  });

  const kinds = Object.keys(EXPERIMENTS);
  it('the registry has kinds to check', () => expect(kinds.length).toBeGreaterThan(0));

  for (const kind of kinds) {
    it(`docs/kinds/${kind}.md exists and names an example spec of the kind that loads`, () => {
      const path = pagePath(kind);
      const text = existsSync(path) ? readFileSync(path, 'utf8') : null;
      expect(pageProblems(kind, text)).toEqual([]);
      expect(readFileSync(join(PROJECT_ROOT, 'docs', 'index.md'), 'utf8'), 'docs/index.md links the page').toContain(`](kinds/${kind}.md)`);
      for (const spec of specPathsOf(text!).filter((p) => existsSync(join(PROJECT_ROOT, p)))) {
        const document = parseYaml(readFileSync(join(PROJECT_ROOT, spec), 'utf8')) as { experiment?: unknown };
        // Every named spec of this kind is valid as written (the loader: zod, the kind's section, its rules).
        if (document.experiment === kind) expect(() => loadKindSpec(join(PROJECT_ROOT, spec)), spec).not.toThrow();
      }
    });
  }
});
