/** Issue 35 (3): `sandbench init [kind]` writes a commented starter spec that loads and plans. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { starterSpec } from '../../cli/commands/init.ts';
import { EXPERIMENTS, SPEC_KINDS } from '../../experiments/registry.ts';
import { parseSpecText } from '../../harness/spec/load-spec.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const kindsWithStarter = SPEC_KINDS.names.filter((kind) => SPEC_KINDS.spec(kind)?.starter);

describe('sandbench init', () => {
  it('shell-ready has a starter, and every starter is a commented spec of its own kind that plans', () => {
    expect(kindsWithStarter).toContain('shell-ready');
    for (const kind of kindsWithStarter) {
      const text = starterSpec(SPEC_KINDS, kind);
      expect(text.split('\n').filter((line) => line.trimStart().startsWith('#')).length, kind).toBeGreaterThanOrEqual(3);
      const spec = parseSpecText(`${kind} starter`, text, SPEC_KINDS);
      expect(spec.experiment).toBe(kind);
      expect(EXPERIMENTS[kind]!.plan(spec).trials.length, kind).toBeGreaterThan(0);
    }
  });

  it('prints the shell-ready starter by default; --out writes a file `plan` accepts and refuses to overwrite it', async () => {
    const printed = await sandbench(['init']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(starterSpec(SPEC_KINDS, 'shell-ready').trimEnd()); // execa strips the final newline
    const file = join(tempDir('sandbench-init-'), 'my.yaml');
    const written = await sandbench(['init', 'command', '--out', file]);
    expect(written.code, written.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(starterSpec(SPEC_KINDS, 'command'));
    const planned = await sandbench(['plan', file]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/^plan my-command \(command\) seed=\d+ arms=host,staged/);
    writeFileSync(file, 'mine\n');
    const again = await sandbench(['init', '--out', file]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/my\.yaml exists; choose another --out or add --force/);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('refuses an unknown kind and a kind without a starter, naming the ones that have one', async () => {
    expect(() => starterSpec(SPEC_KINDS, 'nope')).toThrow(/"nope" is not a kind of this build/);
    const without = SPEC_KINDS.names.find((kind) => !SPEC_KINDS.spec(kind)?.starter);
    if (without) expect(() => starterSpec(SPEC_KINDS, without)).toThrow(new RegExp(`the ${without} kind has no starter spec yet \\(kinds with one: .*shell-ready`));
  });
});
