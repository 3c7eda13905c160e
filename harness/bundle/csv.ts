/**
 * The one CSV writer and reader of bundle files. Writing: papaparse quotes only cells that need it,
 * rows end in '\n', the header is always written.
 *
 * Cell policy (one for every derived file, documented in docs/architecture.md):
 * - absent (null/undefined) → empty cell, never 0;
 * - finite numbers → String(x), the shortest round-trip form, never rounded ("values as measured");
 * - non-finite numbers → String(x) (`NaN`, `Infinity`, `-Infinity`). The statistics return null for
 *   an undefined value, so a non-finite cell marks a computation that went wrong, visibly, instead of
 *   passing for a missing measurement. (This is what analyze has always written, so CSVs of older
 *   bundles stay byte-identical.) Readers (`num`) treat such cells as "no number".
 * - booleans → true/false.
 */
import { existsSync, readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { UserError } from '../errors.ts';

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

export type CsvRow = Record<string, string>;

export interface CsvTable {
  header: string[];
  rows: CsvRow[];
}

/** Every cell a (trimmed) string: the bundle's CSVs are contracts with text cells; numbers are parsed where used. */
export function parseCsv(file: string, text: string): CsvTable {
  const parsed = Papa.parse<CsvRow>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true, transform: (v) => v.trim() });
  const fatal = parsed.errors.find((e) => e.type !== 'FieldMismatch' || e.code !== 'TooFewFields');
  if (fatal) throw new UserError(`${file}: row ${(fatal.row ?? 0) + 2}: ${fatal.message}`);
  return { header: parsed.meta.fields ?? [], rows: parsed.data };
}

/** A bundle CSV, or null when the file is absent (absence is a state: callers say what is missing). */
export function readCsvIfExists(path: string): CsvTable | null {
  if (!existsSync(path)) return null;
  return parseCsv(path, readFileSync(path, 'utf8'));
}

/** A numeric cell: a finite number, or null for empty/non-numeric/non-finite (never 0 standing for missing). */
export function num(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}
