import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { sandbench } from '../../support/cli.ts';

/** Every file in test/bad-specs and the field its error must name. */
const EXPECTED_FIELD: Record<string, RegExp> = {
  'yaml-syntax.yaml': /YAML syntax error at line \d+/,
  'unknown-backend.yaml': /arms\.0\.backend: "firecracker" is not a backend of this build \(expected one of host, staged.*or declare it under backends:\)/,
  'negative-trials.yaml': /trials: .*(>0|positive|too small)/i,
  'missing-field.yaml': /arms: missing required field/,
  'unknown-key.yaml': /\(top level\): unknown key "trails"/,
  'bad-timeout.yaml': /timeout: expected a positive duration/,
  'command-without-argv.yaml': /task\.argv: the command kind needs task\.argv/,
  'prime-runs-on-sandbox.yaml': /command\.prime_runs: only backends that launch task\.argv directly \(host\) can prime it; staged would time/,
  'duplicate-arm.yaml': /arms: arm "host" is listed twice/,
  'bad-cpus.yaml': /controls\.cpus: expected a CPU list/,
  'not-a-mapping.yaml': /\(top level\): expected a YAML mapping/,
  // Kind sections are validated by their kind (harness/spec/kind-spec.ts): the error names the owner.
  'foreign-section.yaml': /density: this section belongs to the density kind, but experiment is shell-ready/,
  'unknown-kind.yaml': /experiment: "shel-ready" is not a kind of this build \(expected one of .*shell-ready/,
  'bad-section-field.yaml': /density\.concurrency\.0: .*(>0|positive|too small)/i,
  // a CLI resumes only its own format's prefixes (experiments/replay/reexecute/cli-resume/)
  'continue-cli-wrong-format.yaml': /replay\.continue_with: codex \/ claude resume their own format's prefixes only/,
};

const dir = join(PROJECT_ROOT, 'test', 'bad-specs');

describe('bad specs are refused with exit 2 and a message naming the file and field', () => {
  it('covers every file of the corpus', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
    expect(files).toEqual(Object.keys(EXPECTED_FIELD).sort());
  });
  for (const [file, pattern] of Object.entries(EXPECTED_FIELD)) {
    it(file, async () => {
      const result = await sandbench(['plan', join(dir, file)]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(file);
      expect(result.stderr).toMatch(pattern);
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(result.stdout).toBe('');
    });
  }
});
