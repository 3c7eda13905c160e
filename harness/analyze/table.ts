/**
 * The one table type of sandbench (after golang/perf's benchtab `Table` and hyperfine's
 * MarkupExporter): rows of display text plus a caption, rendered as aligned text for the terminal,
 * GitHub markdown, HTML and CSV. Renderers never compute: cells arrive formatted by whoever built the
 * table, so every rendering of one table shows the same characters.
 */
import { toCsv } from '../bundle/csv.ts';

export interface Table {
  caption: string;
  header: string[];
  rows: string[][];
  /** Right-aligned columns in the text rendering (numbers); default left. */
  rightAligned?: readonly number[];
  /** Written once under the table (e.g. the method), instead of repeating it per row. */
  footnote?: string;
}

export function textTable(table: Table): string {
  const widths = table.header.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const right = new Set(table.rightAligned ?? []);
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const body = [line(table.header), line(widths.map((w) => '-'.repeat(w))), ...table.rows.map(line)];
  return [...body, ...(table.footnote ? [table.footnote] : [])].join('\n');
}

/** A markdown table cell: pipes escaped, newlines flattened. */
export function mdCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function markdownTable(table: Table): string {
  const line = (cells: readonly string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  const caption = table.caption ? [`**${mdCell(table.caption)}**`, ''] : [];
  const footnote = table.footnote ? ['', `_${mdCell(table.footnote)}_`] : [];
  return [...caption, line(table.header), `|${table.header.map(() => ' --- ').join('|')}|`, ...table.rows.map(line), ...footnote].join('\n');
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function htmlTable(table: Table): string {
  const head = `<tr>${table.header.map((h) => `<th scope="col">${escapeHtml(h)}</th>`).join('')}</tr>`;
  const body = table.rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  const foot = table.footnote ? `\n<tfoot><tr><td colspan="${table.header.length}">${escapeHtml(table.footnote)}</td></tr></tfoot>` : '';
  return `<table>\n<caption>${escapeHtml(table.caption)}</caption>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>${foot}\n</table>`;
}

/** The displayed cells as CSV (for full precision, write the analysis CSVs instead). */
export function csvTable(table: Table): string {
  return toCsv(table.header, table.rows);
}
