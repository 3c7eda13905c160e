/** The synchronous SVG path must draw what vega's own async View.toSVG() draws, for every plot the reports use. */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import { describe, expect, it } from 'vitest';
import { driftSpec, ecdfSpec, forestSpec, isWide, kindChartSpec } from '../../reports/plots/plot-specs.ts';
import { renderVegaLite, stableIds } from '../../reports/plots/render-svg.ts';

async function viaToSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}

// vega-view bundles its own vega-scenegraph copy whose root group says stroke-miterlimit="4" (10 in the top-level copy); geometry is identical.
const normalize = (svg: string) => stableIds(svg, 'x').replace(/stroke-miterlimit="\d+"/, '');

const samples = Array.from({ length: 40 }, (_, i) => ({ arm: i % 2 ? 'docker' : 'staged', block: i >> 1, position: i, value: 100 + ((i * 37) % 23) }));
const SPECS: TopLevelSpec[] = [
  ecdfSpec('completion_ms', 'ms', samples, ['staged', 'docker']),
  driftSpec('completion_ms', 'ms', samples, ['staged', 'docker']),
  forestSpec('ratios', [{ label: 'staged / docker · completion_ms', ratio: 0.78, low: 0.75, high: 0.81 }], 0.05),
  kindChartSpec({
    id: 'capacity',
    title: 'Density capacity: validated / attempted tasks by N',
    x: { title: 'concurrent tasks N', log: true },
    y: { title: 'validated / attempted', domain: [0, 1] },
    points: [
      { series: 'staged (useful)', x: 16, y: 1 },
      { series: 'staged (useful)', x: 64, y: 204 / 320 },
    ],
  }),
];

describe('renderVegaLite', () => {
  it.each(SPECS.map((s) => [String(s.title), s] as const))('%s: same drawing as View.toSVG()', async (_title, spec) => {
    const sync = renderVegaLite(spec, 'x');
    expect(sync.length).toBeGreaterThan(2000);
    expect(normalize(sync)).toBe(normalize(await viaToSvg(spec)));
  });
});

describe('log axes when the data span more than 10× (issue 17)', () => {
  it('ECDF and forest go logarithmic past 10×, stay linear within it', () => {
    const wide = [3, 4, 5, 3000, 3100].map((value, i) => ({ arm: i < 3 ? 'host' : 'qemu', block: i, position: i, value }));
    const narrow = [10, 11, 12, 13, 14].map((value, i) => ({ arm: 'host', block: i, position: i, value }));
    const xScale = (spec: TopLevelSpec) => (spec as { encoding: { x: { scale: { type?: string } } } }).encoding.x.scale.type;
    expect(xScale(ecdfSpec('ready_ms', 'ms', wide, ['host', 'qemu']))).toBe('log');
    expect(xScale(ecdfSpec('ready_ms', 'ms', narrow, ['host']))).toBeUndefined();
    const forest = forestSpec('f', [{ label: 'a', ratio: 2, low: 1.5, high: 2.5 }, { label: 'b', ratio: 900, low: 700, high: 1100 }]) as { layer: { encoding: { x: { scale: { type?: string } } } }[] };
    expect(forest.layer.every((l) => l.encoding.x.scale.type === 'log')).toBe(true);
    expect(isWide([1, 1.5, 2])).toBe(false);
  });
});
