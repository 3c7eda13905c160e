/**
 * fleet-report.md: the per-host panel of a merged fleet bundle — every host's P50s side by side,
 * comparisons within each host, and the combined stratified estimate — rendered from the fleet CSVs
 * so the numbers are the files' own. Pure: CSV text in, markdown out.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { FLEET_FILES } from '../../harness/fleet/fleet-analysis.ts';

export const FLEET_REPORT_FILE = 'fleet-report.md';

type Row = Record<string, string>;

function parse(csv: string): Row[] {
  return Papa.parse<Row>(csv.trim(), { header: true, skipEmptyLines: true }).data;
}

/** Four significant digits, as report.md prints; empty cells stay visible as a dash. */
function num(value: string | undefined): string {
  if (value === undefined || value === '') return '—';
  const n = Number(value);
  return Number.isFinite(n) ? Number(n.toPrecision(4)).toString() : value;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function renderFleetReport(input: { title: string; perHostSummary: string; fleetComparisons: string; hosts: number }): string {
  const summary = parse(input.perHostSummary);
  const comparisons = parse(input.fleetComparisons);
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
    '**P50 per host (ok formal trials, n ok / planned)**',
    '',
    table(['arm', 'metric', ...hosts], cells.map((cell) => [...cell.split('\u0000'), ...hosts.map((h) => p50(h, cell))])),
    '',
    '**Comparisons within each host, and combined across hosts (stratified bootstrap, blocks resampled within hosts)**',
    '',
    table(
      ['scope', 'host', 'candidate', 'control', 'metric', 'n', 'difference [95% CI]', 'ratio [95% CI]', 'conclusion', 'note'],
      comparisons.map((r) => [
        r.scope!, r.host || `${r.hosts} hosts`, r.candidate!, r.control!, r.metric!, r.n!,
        `${num(r.difference_ms)} ${r.unit} [${num(r.ci95_low_ms)}, ${num(r.ci95_high_ms)}]`,
        `${num(r.ratio)} [${num(r.ratio_ci95_low)}, ${num(r.ratio_ci95_high)}]`,
        r.conclusion!, r.note || '',
      ]),
    ),
    '',
  ];
  return out.join('\n');
}

/** Writes fleet-report.md into a merged bundle from its own fleet files (no-op for a bundle that is not a merge). */
export function writeFleetReport(bundleDir: string): void {
  const read = (name: string) => (existsSync(join(bundleDir, name)) ? readFileSync(join(bundleDir, name), 'utf8') : null);
  const perHostSummary = read(FLEET_FILES.perHostSummary);
  const fleetComparisons = read(FLEET_FILES.comparisons);
  const fleet = read(BUNDLE_FILES.fleet);
  if (perHostSummary === null || fleetComparisons === null || fleet === null) return;
  const resolved = JSON.parse(read(BUNDLE_FILES.resolvedSpec) ?? '{}') as { run_id?: string; spec?: { name?: string } };
  const hosts = (JSON.parse(fleet) as { hosts?: unknown[] }).hosts?.length ?? 0;
  const title = `${resolved.spec?.name ?? 'fleet'} (${resolved.run_id ?? '?'})`;
  writeFileSync(join(bundleDir, FLEET_REPORT_FILE), renderFleetReport({ title, perHostSummary, fleetComparisons, hosts }));
}
