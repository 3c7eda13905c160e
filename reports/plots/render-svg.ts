/**
 * Vega-Lite spec → SVG text in Node, headless (vega View with renderer 'none', then toSVG): no
 * browser, no canvas, no network. Deterministic: vega numbers clip paths and gradients with a
 * process-wide counter, so ids are rewritten to `<prefix>-<n>` in order of appearance, which also
 * keeps several plots inlined in one HTML page from sharing ids.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';

export async function renderVegaLite(spec: TopLevelSpec, idPrefix: string): Promise<string> {
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    const svg = await view.toSVG();
    return stableIds(svg, idPrefix);
  } finally {
    view.finalize();
  }
}

export function stableIds(svg: string, prefix: string): string {
  const ids = [...svg.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]!);
  let out = svg;
  ids.forEach((id, index) => {
    const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out
      .replace(new RegExp(`\\bid="${escaped}"`, 'g'), `id="${prefix}-${index}"`)
      .replace(new RegExp(`url\\(#${escaped}\\)`, 'g'), `url(#${prefix}-${index})`)
      .replace(new RegExp(`href="#${escaped}"`, 'g'), `href="#${prefix}-${index}"`);
  });
  return out;
}
