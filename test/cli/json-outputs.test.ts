/**
 * Issue 17 (3): `--json` on compare, gate, reproduce and stats prints one document on stdout that
 * its exported zod schema accepts, whose rows are the cells of the files the command wrote; the
 * human output moves to stderr, and without --json stdout is the human output as before.
 * (doctor: test/cli/doctor-json.test.ts; run/analyze: test/reports/model-agreement.test.ts.)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { CompareJsonSchema, GateJsonSchema, ReproduceJsonSchema, StatsJsonSchema } from '../../reports/json/index.ts';
import { makeSyntheticBundle, type SyntheticArm } from '../reports/synthetic-bundle.ts';
import { runCli } from '../reports/run-cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'sandbench-json-outputs-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Row = Record<string, string>;
const csv = (path: string): Row[] => Papa.parse<Row>(readFileSync(path, 'utf8'), { header: true, skipEmptyLines: true }).data;
/** A JSON row as the CSV writes it: null → empty cell, everything else its text. */
const asCsvText = (row: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, row[k] === null || row[k] === undefined ? '' : String(row[k])]));

const ARMS: SyntheticArm[] = [
  { backend: 'docker', medians: { ready_ms: 70, completion_ms: 800 } },
  { backend: 'staged', medians: { ready_ms: 25, completion_ms: 630 } },
];
const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 501 });
const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 502, slowdown: { staged: 1.3 } });

describe('--json outputs parse with their schemas and carry the files\' cells', () => {
  it('compare --json: comparison.csv rows by column; the table goes to stderr', async () => {
    const out = join(scratch, 'compare');
    const human = await runCli(['compare', baseline, candidate, '--out', out]);
    expect(human.code, human.stderr).toBe(0);
    const header = human.stdout.split('\n').find((l) => l.startsWith('arm '))!;
    expect(header).toMatch(/^arm\s+metric\s+baseline n ok\/planned/);
    const cli = await runCli(['compare', baseline, candidate, '--out', out, '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const json = CompareJsonSchema.parse(JSON.parse(cli.stdout));
    expect(cli.stderr).toContain(header);
    expect(cli.stdout).not.toContain(header);
    expect(json.files?.csv).toBe(join(out, 'comparison.csv'));
    const rows = csv(join(out, 'comparison.csv'));
    expect(json.rows.length).toBe(rows.length);
    json.rows.forEach((row, i) => expect(asCsvText(row, Object.keys(rows[i]!))).toEqual(rows[i]));
    const slow = json.rows.find((r) => r.arm === 'staged' && r.metric === 'completion_ms')!;
    expect(slow.conclusion).toBe('candidate slower');
    expect(typeof slow.ratio).toBe('number');
  });

  it('gate --json --junit --summary-md: gate.csv cells, exit code still the verdict, both CI files written', async () => {
    const dir = join(scratch, 'gate');
    const junit = join(dir, 'junit.xml');
    const summary = join(dir, 'summary.md');
    const cli = await runCli(['gate', baseline, candidate, '--metric', 'completion_ms', '--out', dir, '--junit', junit, '--summary-md', summary, '--json']);
    expect(cli.code, cli.stderr + cli.stdout).toBe(1);
    const json = GateJsonSchema.parse(JSON.parse(cli.stdout));
    expect(json.verdict).toBe('regression');
    expect(json.exit_code).toBe(1);
    expect(json.files).toEqual(expect.arrayContaining([junit, summary, join(dir, 'gate.csv')]));
    expect(cli.stderr).toMatch(/gate: REGRESSION \(exit 1\)/);
    const rows = csv(join(dir, 'gate.csv'));
    expect(json.cells.length).toBe(rows.length);
    json.cells.forEach((cell, i) => expect(asCsvText(cell, Object.keys(rows[i]!))).toEqual(rows[i]));
    expect(readFileSync(junit, 'utf8')).toContain('<testsuites');
    expect(readFileSync(summary, 'utf8')).toMatch(/^### sandbench gate: REGRESSION \(exit 1\)/);
  });

  it('reproduce --json: reproduction.csv and reproduction-orderings.csv rows by column', async () => {
    const bundle = makeSyntheticBundle({
      experiment: 'repair',
      seed: 503,
      blocks: 8,
      arms: [
        { backend: 'host', medians: { completion_ms: 440, result_ms: 430 } },
        { backend: 'staged', medians: { completion_ms: 630, result_ms: 550 } },
        { backend: 'docker', medians: { completion_ms: 810, result_ms: 740 } },
      ],
    });
    const out = join(scratch, 'reproduce');
    const cli = await runCli(['reproduce', bundle, '--out', out, '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const json = ReproduceJsonSchema.parse(JSON.parse(cli.stdout));
    expect(cli.stderr).toMatch(/published row\(s\) matched/);
    const rows = csv(join(out, 'reproduction.csv'));
    const orderings = csv(join(out, 'reproduction-orderings.csv'));
    expect(json.rows.length).toBe(rows.length);
    expect(json.matched + json.unmatched).toBe(rows.length);
    expect(json.matched).toBeGreaterThan(0);
    json.rows.forEach((row, i) => expect(asCsvText(row, Object.keys(rows[i]!))).toEqual(rows[i]));
    json.orderings.forEach((row, i) => expect(asCsvText(row, Object.keys(orderings[i]!))).toEqual(orderings[i]));
  });

  it('stats --json: summary and comparison rows with the Holm family columns of comparisons-detail.csv', async () => {
    const file = join(scratch, 'long.csv');
    const lines = ['arm,block,value'];
    for (let b = 0; b < 12; b++) lines.push(`ctl,${b},${100 + ((b * 7) % 5)}`, `slow,${b},${130 + ((b * 3) % 4)}`, `same,${b},${100 + ((b * 5) % 5)}`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const out = join(scratch, 'stats');
    const cli = await runCli(['stats', file, '--value', 'value', '--arm', 'arm', '--block', 'block', '--control', 'ctl', '--resamples', '500', '--out', out, '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const json = StatsJsonSchema.parse(JSON.parse(cli.stdout));
    expect(cli.stderr).toMatch(/^arm\s+n\s+failed/m);
    const summary = csv(join(out, 'summary.csv'));
    const comparisons = csv(join(out, 'comparisons.csv'));
    const detail = csv(join(out, 'comparisons-detail.csv'));
    json.summary.forEach((row, i) => expect(asCsvText(row, Object.keys(summary[i]!))).toEqual(summary[i]));
    json.comparisons.forEach((row, i) => {
      expect(asCsvText(row, Object.keys(comparisons[i]!))).toEqual(comparisons[i]);
      expect(asCsvText(row, ['rank_test_p', 'family', 'family_size', 'holm_p', 'verdict_survives_holm'])).toEqual(
        asCsvText(detail[i]!, ['rank_test_p', 'family', 'family_size', 'holm_p', 'verdict_survives_holm']),
      );
    });
    expect(json.comparison_family.size).toBe(2);
    expect(json.comparisons.find((c) => c.candidate === 'slow')?.verdict_survives_holm).toBe(true);
  });
});
