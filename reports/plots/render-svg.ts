/**
 * Vega-Lite spec → SVG text in Node, headless and synchronous: no browser, no canvas, no network.
 * Synchronous because `run` calls writeReport(bundleDir) as a plain function before hashing the
 * bundle into manifest.json. vega's View.toSVG() is async only to await image loading and queued
 * re-runs; with inline data and no images the dataflow evaluates completely inside `view.run()`,
 * so the scenegraph is rendered here with vega's own headless SVG string renderer, sized exactly as
 * vega-view sizes it (test/reports/render-svg.test.ts checks the output against toSVG()).
 * Deterministic: vega numbers clip paths with a process-wide counter, so ids are rewritten to
 * `<prefix>-<n>`, which also keeps several plots inlined in one HTML page from sharing ids.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';

interface ViewInternals {
  _viewWidth: number;
  _viewHeight: number;
  _origin: [number, number];
}

interface StringRenderer {
  initialize(el: null, width: number, height: number, origin: [number, number], scaleFactor: number): StringRenderer;
  background(color: unknown): StringRenderer;
  render(scene: unknown): StringRenderer;
  svg(): string | null;
}

export function renderVegaLite(spec: TopLevelSpec, idPrefix: string): string {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  try {
    view.run();
    const internals = view as unknown as ViewInternals;
    if (!Number.isFinite(internals._viewWidth) || !Array.isArray(internals._origin)) throw new Error('vega View internals changed: cannot size the SVG (update reports/plots/render-svg.ts)');
    const padding = view.padding() as { left: number; right: number; top: number; bottom: number };
    const Renderer = (vega.renderModule as unknown as (name: string) => { headless: new (loader: unknown) => StringRenderer })('svg').headless;
    const svg = new Renderer(view.loader())
      .initialize(
        null,
        Math.max(0, internals._viewWidth + padding.left + padding.right),
        Math.max(0, internals._viewHeight + padding.top + padding.bottom),
        [padding.left + internals._origin[0], padding.top + internals._origin[1]],
        1,
      )
      .background((view as unknown as { background(): unknown }).background())
      .render((view.scenegraph() as unknown as { root: unknown }).root)
      .svg();
    if (!svg) throw new Error(`vega rendered no SVG for "${String(spec.title ?? idPrefix)}"`);
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
