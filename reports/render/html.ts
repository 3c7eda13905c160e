/**
 * Self-contained HTML: inline CSS and inline SVG only — no scripts, no external URLs, no fonts to
 * fetch — so the file can be attached to a ticket and opened offline. Deterministic: no timestamps.
 */
import type { RenderedPlot } from '../plots/report-plots.ts';
import { escapeHtml, htmlTable, type Table } from '../../harness/analyze/table.ts';

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1100px;color:#222;line-height:1.4;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.85rem}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border:1px solid #ccc;padding:.2rem .45rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}
.warn{background:#fff4e5;border-left:4px solid #f0a020;padding:.5rem 1rem;margin:1rem 0}
.refuse{background:#fdecea;border-left:4px solid #d62728;padding:.5rem 1rem;margin:1rem 0}
figure{margin:1rem 0}figcaption{font-size:.85rem;color:#555}
.meta{color:#555;font-size:.9rem}
.verdicts{font-size:1rem;margin:.5rem 0;padding-left:1.2rem}.verdicts li{margin:.15rem 0}
figure.headline{margin:.5rem 0 1rem}
details{margin:1rem 0}summary{cursor:pointer;font-weight:600}
`;

export { htmlTable };

export function htmlPlot(plot: RenderedPlot, className = 'plot'): string {
  return `<figure id="plot-${escapeHtml(plot.id)}" class="${escapeHtml(className)}">\n${plot.svg}\n<figcaption>${escapeHtml(plot.title)}</figcaption>\n</figure>`;
}

export type HtmlBlock = { kind: 'heading'; text: string } | { kind: 'paragraph'; text: string; className?: string } | { kind: 'list'; items: string[]; className?: string } | { kind: 'table'; table: Table } | { kind: 'plot'; plot: RenderedPlot; className?: string } | { kind: 'details'; summary: string; blocks: HtmlBlock[] };

function block(b: HtmlBlock): string {
  switch (b.kind) {
    case 'heading':
      return `<h2>${escapeHtml(b.text)}</h2>`;
    case 'paragraph':
      return `<p${b.className ? ` class="${b.className}"` : ''}>${escapeHtml(b.text)}</p>`;
    case 'list':
      return `<ul${b.className ? ` class="${b.className}"` : ''}>${b.items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
    case 'table':
      return htmlTable(b.table);
    case 'plot':
      return htmlPlot(b.plot, b.className ? `plot ${b.className}` : 'plot');
    case 'details':
      return `<details>\n<summary>${escapeHtml(b.summary)}</summary>\n${b.blocks.map(block).join('\n')}\n</details>`;
  }
}

export function htmlDocument(title: string, meta: string, blocks: readonly HtmlBlock[]): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">${escapeHtml(meta)}</p>`,
    ...blocks.map(block),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
