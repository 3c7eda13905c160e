/** GitHub-flavoured markdown for pull-request comments: pipe tables; long methods inside `<details>`. */
import { mdCell } from './format.ts';
import type { Table } from './tables.ts';

export function mdTable(table: Table): string {
  const line = (cells: readonly string[]) => `| ${cells.map(mdCell).join(' | ')} |`;
  return [`**${mdCell(table.caption)}**`, '', line(table.header), `|${table.header.map(() => ' --- ').join('|')}|`, ...table.rows.map(line)].join('\n');
}

/** A collapsible section; the blank line after <summary> lets GitHub render the markdown inside. */
export function mdDetails(summary: string, body: string): string {
  return `<details>\n<summary>${summary}</summary>\n\n${body}\n\n</details>`;
}
