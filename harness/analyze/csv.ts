/**
 * CSV writing for every derived file: papaparse quotes only cells that need it, rows end in '\n',
 * numbers are printed with String(x) (shortest round-trip form, never rounded — "values as
 * measured", as BenchExec reports them), absent values are empty cells (never 0 or NaN).
 */
import Papa from 'papaparse';

export type Cell = string | number | boolean | null | undefined;

export function formatCell(cell: Cell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number') return String(cell);
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  return cell;
}

export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  for (const [index, row] of rows.entries()) {
    if (row.length !== header.length) throw new Error(`CSV row ${index} has ${row.length} cells for ${header.length} columns (${header[0]}...)`);
  }
  const body = Papa.unparse({ fields: [...header], data: rows.map((row) => row.map(formatCell)) }, { newline: '\n' });
  return `${body}\n`;
}

/** Deterministic JSON of a flat count map: keys sorted so the bytes never depend on insertion order. */
export function sortedJson(counts: Record<string, number>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
}
