/**
 * The one conversion of CSV cells to JSON values for every `--json` output: the same cells the
 * files hold, by column. Absent → null; a non-finite number → its CSV text ("NaN"/"Infinity"),
 * visibly a defect and never a silent null (docs/architecture.md, CSV cell policy).
 */
import { z } from 'zod';
import type { Cell } from '../../harness/bundle/csv.ts';

export const JsonCell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const JsonRow = z.record(z.string(), JsonCell);
export type JsonRowValue = z.infer<typeof JsonRow>;

export function jsonCell(cell: Cell): string | number | boolean | null {
  if (cell === undefined) return null;
  if (typeof cell === 'number' && !Number.isFinite(cell)) return String(cell);
  return cell;
}

export function jsonRows(header: readonly string[], rows: readonly (readonly Cell[])[]): JsonRowValue[] {
  return rows.map((row) => Object.fromEntries(header.map((h, i) => [h, jsonCell(row[i])])));
}

/** One JSON document on stdout, newline-terminated (what `| jq` reads). */
export function jsonDocument(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
