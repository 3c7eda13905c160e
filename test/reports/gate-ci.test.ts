/**
 * Issue 17 (4): `gate --junit FILE` writes JUnit XML a JUnit parser reads (fast-xml-parser's
 * validator and parser here): one testcase per gated arm × metric, a regression as <failure> with
 * the verdict and CI, gate-level problems as an errored testcase; `gate --summary-md FILE` (or
 * $GITHUB_STEP_SUMMARY, appended) writes the verdicts table and the ratio chart.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSyntheticBundle, type SyntheticArm } from './synthetic-bundle.ts';
import { runCli } from './run-cli.ts';
import { xmlText } from '../../reports/gate/gate-ci.ts';

const ARMS: SyntheticArm[] = [
  { backend: 'docker', medians: { ready_ms: 70, completion_ms: 800 } },
  { backend: 'staged', medians: { ready_ms: 25, completion_ms: 630 } },
];

interface JunitCase {
  classname: string;
  name: string;
  failure?: { type: string; message: string; '#text': string };
  error?: { type: string; message: string; '#text': string };
  'system-out'?: string;
}

function parseJunit(xml: string) {
  expect(XMLValidator.validate(xml)).toBe(true);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'property' }).parse(xml);
  const suite = doc.testsuites.testsuite;
  return { root: doc.testsuites, suite, cases: suite.testcase as JunitCase[] };
}

const previousSummary = process.env.GITHUB_STEP_SUMMARY;
afterEach(() => {
  if (previousSummary === undefined) delete process.env.GITHUB_STEP_SUMMARY;
  else process.env.GITHUB_STEP_SUMMARY = previousSummary;
});

describe('gate --junit and --summary-md', () => {
  const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 16, seed: 601 });
  const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 16, seed: 602, slowdown: { staged: 1.25 } });

  it('a regression: one testcase per arm × metric, the regressed one a <failure> carrying verdict, ratio and CI', async () => {
    delete process.env.GITHUB_STEP_SUMMARY;
    const junit = join(candidate, 'out', 'junit.xml');
    const summary = join(candidate, 'out', 'summary.md');
    const cli = await runCli(['gate', baseline, candidate, '--metric', 'completion_ms,ready_ms', '--threshold', '15%', '--junit', junit, '--summary-md', summary]);
    expect(cli.code, cli.stdout).toBe(1);
    expect(cli.stdout).toContain(`wrote ${junit}, ${summary}`);
    const { root, suite, cases } = parseJunit(readFileSync(junit, 'utf8'));
    expect(cases).toHaveLength(4);
    expect(cases.map((c) => `${c.classname} ${c.name}`).sort()).toEqual([
      'sandbench.gate.docker completion_ms P50',
      'sandbench.gate.docker ready_ms P50',
      'sandbench.gate.staged completion_ms P50',
      'sandbench.gate.staged ready_ms P50',
    ]);
    const failures = cases.filter((c) => c.failure);
    expect(Number(suite.failures)).toBe(failures.length);
    expect(Number(root.tests)).toBe(4);
    expect(Number(suite.errors)).toBe(0);
    const staged = cases.find((c) => c.classname === 'sandbench.gate.staged' && c.name === 'completion_ms P50')!;
    expect(staged.failure?.type).toBe('regression');
    expect(staged.failure?.message).toMatch(/^regression: staged completion_ms P50 ratio 1\.\d{2} \[1\.\d{2}, 1\.\d{2}\], limit ≤ 1\.15 \(\+15\.0%\)/);
    expect(staged.failure?.['#text']).toContain('method: ');
    // The unchanged arm passes (its CI sits far below a 15% limit): no failure, the verdict as system-out.
    const docker = cases.find((c) => c.classname === 'sandbench.gate.docker' && c.name === 'completion_ms P50')!;
    expect(docker.failure).toBeUndefined();
    expect(docker['system-out']).toMatch(/^pass: docker completion_ms P50 ratio/);

    const md = readFileSync(summary, 'utf8');
    expect(md).toMatch(/^### sandbench gate: REGRESSION \(exit 1\)\n/);
    expect(md).toMatch(/\| staged \| completion_ms \| P50 \| 1\.\d{2} \[1\.\d{2}, 1\.\d{2}\] \| ≤ 1\.15 \| ❌ regression \|/);
    expect(md).toContain('```text\nratio candidate / baseline with 95% CI');
    expect(md).toContain('┆ at 1.15: limit (+15.0%)');
  });

  it('gate-level invalidity (trials missing from the journal) is an errored testcase; the summary appends to $GITHUB_STEP_SUMMARY', async () => {
    const damaged = makeSyntheticBundle({ arms: ARMS, blocks: 16, seed: 603 });
    const journal = join(damaged, 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    writeFileSync(journal, `${lines.filter((l) => !l.includes('"trial_id":"b0005-staged"')).join('\n')}\n`);
    const stepSummary = join(damaged, 'step-summary.md');
    writeFileSync(stepSummary, '## earlier step\n');
    process.env.GITHUB_STEP_SUMMARY = stepSummary;
    const junit = join(damaged, 'junit.xml');
    const cli = await runCli(['gate', baseline, damaged, '--metric', 'completion_ms', '--junit', junit]);
    expect(cli.code).toBe(3);
    const { suite, cases } = parseJunit(readFileSync(junit, 'utf8'));
    const validity = cases.find((c) => c.name === 'gate validity')!;
    expect(validity.error?.type).toBe('invalid');
    expect(validity.error?.['#text']).toMatch(/planned formal trial\(s\) have no journal line/);
    expect(Number(suite.errors)).toBeGreaterThanOrEqual(1);
    expect(Number(suite.tests)).toBe(cases.length);
    const md = readFileSync(stepSummary, 'utf8');
    expect(md.startsWith('## earlier step\n### sandbench gate: INVALID (exit 3)')).toBe(true);
    expect(md).toMatch(/- invalid: .*no journal line/);
  });

  it('escapes XML metacharacters and drops characters XML cannot carry', () => {
    expect(xmlText(`a<b & "c" 'd'>\u0001 😀`)).toBe('a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt; 😀');
  });
});
