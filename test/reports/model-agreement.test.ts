/**
 * Acceptance (issue 12): report.md and the terminal summary are renderings of the one analysis.
 * For each shipped kind's fixture bundle, every number they print equals (after the display
 * rounding) the corresponding cell of summary.csv / comparisons.csv, and each P50 CI endpoint is a
 * valid sample of that arm in samples.csv (an order-statistic interval, nothing recomputed).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { analysisJson, AnalysisJsonSchema, analyzeBundle, FAMILY_COLUMNS } from '../../harness/analyze/index.ts';
import { runCli } from './run-cli.ts';
import { writeReport } from '../../reports/index.ts';
import { fmt, fmtInterval, fmtRatio, methodWithoutSeed } from '../../reports/render/format.ts';
import { terminalSummary } from '../../reports/render/terminal-summary.ts';
import { conclusionWords } from '../../reports/render/verdict-words.ts';
import { kindCatalog } from '../../cli/kinds.ts';

const kinds = await kindCatalog();
const FIXTURES = resolve(import.meta.dirname, '../fixtures/bundles');
const scratch = mkdtempSync(join(tmpdir(), 'sandbench-model-agreement-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Row = Record<string, string>;
const csv = (dir: string, name: string): Row[] => Papa.parse<Row>(readFileSync(join(dir, name), 'utf8'), { header: true, skipEmptyLines: true }).data;
const shown = (cell: string | undefined, unit = '') => fmt(cell === undefined || cell === '' ? null : Number(cell), unit);

/** The markdown pipe table whose header starts with `first`: header cells and rows. */
function mdTable(md: string, headerStart: string): { header: string[]; rows: Row[] } {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.startsWith(`| ${headerStart} |`));
  expect(at, `table starting with ${headerStart}`).toBeGreaterThanOrEqual(0);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL stands in for an escaped pipe while the row is split
  const cells = (l: string) => l.replace(/\\\|/g, '\u0000').split('|').slice(1, -1).map((c) => c.trim().replace(/\u0000/g, '|'));
  const header = cells(lines[at]!);
  const rows: Row[] = [];
  for (let i = at + 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(Object.fromEntries(cells(lines[i]!).map((c, j) => [header[j]!, c])));
  return { header, rows };
}

for (const kind of ['shell-ready', 'density', 'replay']) {
  describe(`${kind} fixture: report.md and the terminal summary agree with the CSVs`, () => {
    const dir = join(scratch, kind);
    cpSync(join(FIXTURES, kind), dir, { recursive: true });
    const analyzed = analyzeBundle(dir, kinds);
    writeReport(analyzed);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const summary = csv(dir, 'summary.csv');
    const comparisons = csv(dir, 'comparisons.csv');
    const detail = csv(dir, 'comparisons-detail.csv');
    const samples = csv(dir, 'samples.csv');
    const summaryRow = (arm: string, metric: string) => summary.find((r) => r.backend === arm && r.metric === metric);

    it('every per-arm row of report.md is the summary.csv row of that arm and metric', () => {
      const table = mdTable(md, 'arm | metric');
      expect(table.rows.length).toBe(summary.filter((r) => Number(r.planned) > 0).length);
      for (const row of table.rows) {
        const s = summaryRow(row.arm!, row.metric!)!;
        expect(s, `${row.arm} ${row.metric}`).toBeDefined();
        expect(row['n ok / planned']).toBe(`${s.n} / ${s.planned}`);
        expect(row.failed).toBe(s.failed);
        expect(row.unit).toBe(s.unit || '—');
        expect(row['P95 (ref., n ≥ 30)']).toBe(shown(s.p95_reference));
        expect(row.min).toBe(shown(s.minimum));
        expect(row.max).toBe(shown(s.maximum));
        const p50 = row['P50 [95% CI]']!;
        if (s.distribution === 'separated-clusters') {
          expect(p50).toContain(`low n=${s.low_n} P50 ${shown(s.low_p50)}, high n=${s.high_n} P50 ${shown(s.high_p50)}`);
          continue;
        }
        if (s.p50 === '') {
          expect(p50).toBe('— (no ok trials)');
          continue;
        }
        expect(p50.startsWith(shown(s.p50))).toBe(true);
        // The CI's endpoints are order statistics: values of this arm's valid samples.
        const ci = /\[(.+), (.+)\]$/.exec(p50);
        if (ci) {
          const values = new Set(samples.filter((x) => x.arm === row.arm && x.metric === row.metric && x.warmup === 'false' && x.outcome === 'ok').map((x) => shown(x.value)));
          expect(values.has(ci[1]!) && values.has(ci[2]!), `${row.arm} ${row.metric} CI ${ci[0]}`).toBe(true);
        } else {
          expect(p50).toContain('no 95% CI');
          expect(Number(s.n)).toBeLessThan(6);
        }
      }
    });

    it('every comparison row of report.md is the comparisons.csv row', () => {
      if (comparisons.length === 0) return expect(md).not.toContain('| candidate | control |');
      const table = mdTable(md, 'candidate');
      expect(table.rows.length).toBe(comparisons.length);
      table.rows.forEach((row, i) => {
        const c = comparisons[i]!;
        // The conclusion in the words of the metric (larger/smaller when it is not a time).
        expect([row.candidate, row.control, row.metric, row.n, row.conclusion]).toEqual([c.candidate, c.control, c.metric, c.n, conclusionWords(c.conclusion!, c.metric!, c.unit ?? '')]);
        // The method is written once as a footnote (m1: …) with the per-row seed left to comparisons.csv.
        expect(md).toContain(`${row.method}: ${methodWithoutSeed(c.confidence_method!)}`);
        const d = detail[i]!;
        expect(row['Holm p']).toBe(d.holm_p === '' ? '—' : Number(d.holm_p) < 0.001 ? Number(d.holm_p).toExponential(1) : Number(d.holm_p).toPrecision(2));
        expect(row['survives Holm']).toBe({ true: 'yes', false: 'no', '': '—' }[d.verdict_survives_holm!]);
        const num = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
        expect(row['difference of medians [95% CI]']).toBe(`${fmt(num(c.difference_ms), c.unit)} ${fmtInterval(num(c.ci95_low_ms), num(c.ci95_high_ms))}`);
        expect(row['ratio [95% CI]']).toBe(`${fmtRatio(num(c.ratio))} ${fmtInterval(num(c.ratio_ci95_low), num(c.ratio_ci95_high), fmtRatio)}`);
      });
    });

    it('the trials table counts what summary.csv counts', () => {
      for (const row of mdTable(md, 'arm | metric').rows.length ? mdTable(md.slice(md.indexOf('**Trials by arm')), 'arm').rows : []) {
        const s = summary.find((r) => r.backend === row.arm)!;
        expect([row.planned, row['failed/invalid'], row.ok]).toEqual([s.planned, s.failed, String(Number(s.planned) - Number(s.failed))]);
      }
    });

    it('analyze --json is one schema-valid document whose rows are the CSV cells', async () => {
      const cli = await runCli(['analyze', dir, '--json']);
      expect(cli.code, cli.stderr).toBe(0);
      const json = AnalysisJsonSchema.parse(JSON.parse(cli.stdout));
      expect(json).toEqual(analysisJson(analyzed.analysis));
      expect(json.summary.length).toBe(summary.length);
      json.summary.forEach((row, i) => expect(Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? '' : String(v)]))).toEqual(summary[i]));
      const asText = (row: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, row[k] === null ? '' : String(row[k])]));
      json.comparisons.forEach((row, i) => {
        expect(asText(row, Object.keys(comparisons[i]!))).toEqual(comparisons[i]);
        // The family columns are comparisons-detail.csv's: the one family of the results model.
        expect(asText(row, FAMILY_COLUMNS)).toEqual(asText(detail[i]!, FAMILY_COLUMNS));
      });
      expect(json.comparison_family.size).toBe(detail.filter((d) => d.rank_test_p !== '').length);
      expect(json.comparison_family.surviving).toBe(detail.filter((d) => d.verdict_survives_holm === 'true').length);
    });

    it('the terminal summary leads with the primary metric and prints only CSV cells', () => {
      const text = terminalSummary(analyzed);
      const primary = analyzed.analysis.primaryMetrics;
      expect(primary.length).toBeGreaterThan(0);
      expect(text.startsWith(primary[0]!)).toBe(true);
      const lines = text.split('\n');
      let checked = 0;
      for (const metric of primary) {
        const start = lines.findIndex((l) => l.startsWith(metric));
        const header = lines[start + 1]!;
        const cols = ['arm', 'ok/planned', 'P50 [95% CI]', 'P95 (n ≥ 30)', 'ratio vs control [95% CI]', 'verdict'].map((h) => header.indexOf(h));
        let arm = '';
        for (let i = start + 3; i < lines.length && lines[i]!.trim() !== ''; i++) {
          const line = lines[i]!;
          const cell = (k: number) => line.slice(cols[k]!, k + 1 < cols.length ? cols[k + 1] : undefined).trim();
          if (cell(0)) {
            arm = cell(0);
            const s = summaryRow(arm, metric)!;
            expect(cell(1)).toBe(`${s.n}/${s.planned}`);
            if (s.p50 !== '') expect(cell(2).startsWith(shown(s.p50))).toBe(true);
            expect(cell(3)).toBe(shown(s.p95_reference));
            checked++;
          }
          const ratio = cell(4);
          if (ratio && ratio !== 'control') {
            const control = ratio.split(' vs ').at(-1)!;
            const c = comparisons.find((x) => x.candidate === arm && x.control === control && x.metric === metric)!;
            expect(ratio.startsWith(c.ratio === '' ? '—' : `${fmtRatio(Number(c.ratio))}×`)).toBe(true);
            expect(cell(5)).toBe(conclusionWords(c.conclusion!, c.metric!, c.unit ?? ''));
          }
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  });
}
