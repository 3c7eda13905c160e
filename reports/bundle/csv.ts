/**
 * CSV in and out for reports. Reading: papaparse with headers, every cell a string (the bundle's CSVs
 * are contracts with text cells; numbers are parsed where used). Writing: RFC 4180 quoting and
 * numbers printed with full precision (values are never rounded in data files).
 */
import { existsSync, readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { UserError } from '../../harness/errors.ts';

export type CsvRow = Record<string, string>;

export interface CsvTable {
  header: string[];
  rows: CsvRow[];
}

export function parseCsv(file: string, text: string): CsvTable {
  const parsed = Papa.parse<CsvRow>(text, { header: true, skipEmptyLines: true, transform: (v) => v.trim() });
  const fatal = parsed.errors.find((e) => e.type !== 'FieldMismatch' || e.code !== 'TooFewFields');
  if (fatal) throw new UserError(`${file}: row ${(fatal.row ?? 0) + 2}: ${fatal.message}`);
  return { header: parsed.meta.fields ?? [], rows: parsed.data };
}

/** A bundle CSV, or null when the file is absent (absence is a state: callers say what is missing). */
export function readCsvIfExists(path: string): CsvTable | null {
  if (!existsSync(path)) return null;
  return parseCsv(path, readFileSync(path, 'utf8'));
}

export type CsvCell = string | number | boolean | null | undefined;

function cell(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header.map(cell).join(','), ...rows.map((row) => row.map(cell).join(','))].join('\n') + '\n';
}

/** A numeric cell: a finite number, or null for empty/non-numeric (never 0 standing for missing). */
export function num(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}
