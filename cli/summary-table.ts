import Papa from 'papaparse';

const COLUMNS = ['backend', 'metric', 'planned', 'failed', 'n', 'p50', 'p95_reference', 'minimum', 'maximum', 'distribution', 'low_p50', 'high_p50'] as const;

function formatCell(column: string, value: string | undefined): string {
  if (value === undefined || value === '') return '—';
  if (['p50', 'p95_reference', 'minimum', 'maximum', 'low_p50', 'high_p50'].includes(column)) {
    const number = Number(value);
    return Number.isFinite(number) ? number.toFixed(2) : value;
  }
  return value;
}

/** An aligned text table of summary.csv for the terminal (numbers rounded for reading only; the CSV keeps full precision). */
export function formatSummaryTable(csv: string): string {
  const rows = Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
  const table = [COLUMNS.map(String), ...rows.map((row) => COLUMNS.map((column) => formatCell(column, row[column])))];
  const widths = COLUMNS.map((_, index) => Math.max(...table.map((row) => row[index]!.length)));
  return table.map((row) => row.map((cell, index) => (index < 2 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ')).join('\n');
}
