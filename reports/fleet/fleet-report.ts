/**
 * fleet-report.md: the per-host panel of a merged fleet bundle — every host's P50s side by side,
 * comparisons within each host, and the combined stratified estimate — rendered from the fleet CSVs
 * so the numbers are the files' own. Pure: CSV text in, markdown out.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCsv, type CsvRow } from '../../harness/bundle/csv.ts';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { readBundle } from '../../harness/bundle/read.ts';
import { markdownTable } from '../../harness/analyze/table.ts';
import { FLEET_FILES } from '../../harness/fleet/fleet-analysis.ts';

export const FLEET_REPORT_FILE = BUNDLE_FILES.fleetReportMd;

type Row = CsvRow;

/** Four significant digits, as report.md prints; empty cells stay visible as a dash. */
function num(value: string | undefined): string {
  if (value === undefined || value === '') return '—';
  const n = Number(value);
  return Number.isFinite(n) ? Number(n.toPrecision(4)).toString() : value;
}

/** From the fleet CSVs' text (as analysis wrote them). */
export function renderFleetReport(input: { title: string; perHostSummary: string; fleetComparisons: string; hosts: number }): string {
  return renderFleetRows({
    title: input.title,
    summary: parseCsv(FLEET_FILES.perHostSummary, input.perHostSummary).rows,
    comparisons: parseCsv(FLEET_FILES.comparisons, input.fleetComparisons).rows,
    hosts: input.hosts,
  });
}

function renderFleetRows(input: { title: string; summary: readonly Row[]; comparisons: readonly Row[]; hosts: number }): string {
  const { summary, comparisons } = input;
  const hosts = [...new Set(summary.map((r) => r.host!))];
  const cells = [...new Set(summary.map((r) => `${r.backend}\u0000${r.metric}`))];
  const p50 = (host: string, cell: string) => {
    const [backend, metric] = cell.split('\u0000');
    const row = summary.find((r) => r.host === host && r.backend === backend && r.metric === metric);
    return row ? `${num(row.p50)} (n=${row.n}/${row.planned}${row.failed !== '0' ? `, ${row.failed} failed` : ''})` : '—';
  };
  const out = [
    `## sandbench fleet report: ${input.title}`,
    '',
    `${input.hosts} host(s). Host is a block: medians are never pooled across hosts. ${input.hosts > 1 ? 'summary.csv and comparisons.csv pool hosts and are not fleet estimates; the tables below are.' : 'With one host, summary.csv and comparisons.csv are that host\'s.'}`,
    '',
    markdownTable({
      caption: 'P50 per host (ok formal trials, n ok / planned)',
      header: ['arm', 'metric', ...hosts],
      rows: cells.map((cell) => [...cell.split('\u0000'), ...hosts.map((h) => p50(h, cell))]),
    }),
    '',
    markdownTable({
      caption: 'Comparisons within each host, and combined across hosts (stratified bootstrap, blocks resampled within hosts)',
      header: ['scope', 'host', 'candidate', 'control', 'metric', 'n', 'difference [95% CI]', 'ratio [95% CI]', 'conclusion', 'note'],
      rows: comparisons.map((r) => [
        r.scope!, r.host || `${r.hosts} hosts`, r.candidate!, r.control!, r.metric!, r.n!,
        `${num(r.difference_ms)} ${r.unit} [${num(r.ci95_low_ms)}, ${num(r.ci95_high_ms)}]`,
        `${num(r.ratio)} [${num(r.ratio_ci95_low)}, ${num(r.ratio_ci95_high)}]`,
        r.conclusion!, r.note || '',
      ]),
    }),
    '',
  ];
  return out.join('\n');
}

/** Writes fleet-report.md into a merged bundle from its own fleet files (no-op for a bundle that is not a merge). */
export function writeFleetReport(bundleDir: string): void {
  if (!existsSync(join(bundleDir, BUNDLE_FILES.fleet))) return;
  const bundle = readBundle(bundleDir);
  const perHostSummary = bundle.csv(FLEET_FILES.perHostSummary);
  const fleetComparisons = bundle.csv(FLEET_FILES.comparisons);
  if (perHostSummary === null || fleetComparisons === null) return;
  const hosts = new Set(perHostSummary.rows.map((row) => row.host)).size;
  const title = `${bundle.resolved.spec.name ?? 'fleet'} (${bundle.resolved.run_id})`;
  writeFileSync(join(bundleDir, FLEET_REPORT_FILE), renderFleetRows({ title, summary: perHostSummary.rows, comparisons: fleetComparisons.rows, hosts }));
}
