/**
 * Acceptance: report.html opened in a real headless Chromium shows its plots (non-empty SVGs with the
 * expected titles) and logs no console errors. The test may start the browser; reports/ never does.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { writeReport } from '../../reports/index.ts';
import { makeSyntheticBundle } from './synthetic-bundle.ts';
import { kindCatalog } from '../../cli/kinds.ts';

const kinds = await kindCatalog();

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))('report.html in headless Chromium', () => {
  it('shows non-empty SVG plots with the expected titles and no console errors', async () => {
    const bundle = makeSyntheticBundle({
      arms: [
        { backend: 'docker', medians: { ready_ms: 70, completion_ms: 800 } },
        { backend: 'staged', medians: { ready_ms: 25, completion_ms: 630 } },
      ],
      blocks: 12,
      seed: 301,
      compare: [{ candidate: 'staged', control: 'docker', metric: 'completion_ms' }],
    });
    writeReport(analyzeBundle(bundle, kinds));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(pathToFileURL(join(bundle, 'report.html')).href);
      const plots = await page.$$eval('figure.plot', (figures) =>
        figures.map((f) => {
          const svg = f.querySelector('svg');
          const box = svg?.getBoundingClientRect();
          return {
            title: f.querySelector('figcaption')?.textContent ?? '',
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            marks: svg?.querySelectorAll('path, line, circle, rect, text').length ?? 0,
            svgText: svg?.textContent ?? '',
          };
        }),
      );
      const titles = plots.map((p) => p.title);
      expect(titles).toEqual(
        expect.arrayContaining([
          'ECDF of completion_ms by arm',
          'completion_ms in schedule order (drift)',
          'ECDF of ready_ms by arm',
          'ready_ms in schedule order (drift)',
          'Comparison ratios of medians with 95% CI',
        ]),
      );
      for (const plot of plots) {
        expect(plot.width, plot.title).toBeGreaterThan(100);
        expect(plot.height, plot.title).toBeGreaterThan(50);
        expect(plot.marks, plot.title).toBeGreaterThan(10);
        expect(plot.svgText, plot.title).toContain(plot.title);
      }
      const tables = await page.$$eval('table caption', (captions) => captions.map((c) => c.textContent));
      expect(tables.some((c) => c?.startsWith('Per-arm results'))).toBe(true);
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
