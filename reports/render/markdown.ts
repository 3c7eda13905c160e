/** GitHub-flavoured markdown for pull-request comments: pipe tables (harness's one Table renderer); long methods inside `<details>`. */
export { markdownTable as mdTable } from '../../harness/analyze/table.ts';

/** A collapsible section; the blank line after <summary> lets GitHub render the markdown inside. */
export function mdDetails(summary: string, body: string): string {
  return `<details>\n<summary>${summary}</summary>\n\n${body}\n\n</details>`;
}
