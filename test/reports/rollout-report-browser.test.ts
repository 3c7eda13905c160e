/**
 * Acceptance (issue 30): a rollout report opened in headless Chromium (Debian's, driven by
 * playwright-core, as report-browser.test.ts) at 1280×800 leads with, per cell, rollouts/s [CI],
 * reward [CI], memory per rollout with its method, and the bottleneck, then the sentence comparing
 * each candidate with its control, all inside the first viewport; the latency charts come after.
 * The bundle is a real run (test/fixtures/bundles/rollout: podman with runc, podman with gVisor's
 * runsc and staged, C = 1 and 4, 8 attempts per cell), re-analysed here: the numbers are the rollout
 * kind's analysis, rendered.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { writeReport } from '../../reports/index.ts';
import { terminalSummary } from '../../reports/render/terminal-summary.ts';
import { kindCatalog } from '../../cli/kinds.ts';

const kinds = await kindCatalog();
const CHROMIUM = '/usr/bin/chromium';
const VIEWPORT = { width: 1280, height: 800 };
if (!existsSync(CHROMIUM)) console.warn(`rollout-report-browser.test.ts skipped: ${CHROMIUM} is absent (apt-get install chromium, or scripts/setup.sh --with chromium)`);

describe.skipIf(!existsSync(CHROMIUM))('rollout report in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    dir = mkdtempSync(join(tmpdir(), 'sandbench-browser-rollout-'));
    cpSync(resolve(import.meta.dirname, '../fixtures/bundles/rollout'), dir, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first 1280×800 viewport holds every cell\'s throughput, reward, memory (with its method) and bottleneck, and the comparison sentences; the latency charts come after', async () => {
    const analyzed = analyzeBundle(dir, kinds, { write: false });
    writeReport(analyzed);
    const page = await browser.newPage({ viewport: VIEWPORT });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(pathToFileURL(join(dir, 'report.html')).href);
      const lead = await page.$eval('table', (table) => ({
        caption: table.querySelector('caption')?.textContent ?? '',
        header: [...table.querySelectorAll('thead th, tr:first-child th')].map((th) => th.textContent ?? ''),
        rows: [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
        bottom: table.getBoundingClientRect().bottom,
        right: table.getBoundingClientRect().right,
      }));
      expect(lead.caption).toMatch(/^Rollouts per cell: completed rollouts\/s, reward, memory per rollout \(P50, with its method\), bottleneck/);
      expect(lead.header).toEqual(['arm', 'C', 'model', 'rollouts/s [95% CI]', 'reward [95% CI]', 'memory/rollout', 'bottleneck', 'completed/planned']);
      // Six cells: three arms × C = 1, 4; every cell with its numbers, its memory method and its bottleneck.
      expect(lead.rows.map((r) => `${r[0]} C=${r[1]}`)).toEqual(['podman-runc C=1', 'podman-runc C=4', 'podman-runsc C=1', 'podman-runsc C=4', 'staged C=1', 'staged C=4']);
      for (const row of lead.rows) {
        expect(row[3]).toMatch(/^\d+\.\d{3} \[\d+\.\d{3}, \d+\.\d{3}\]$/);
        expect(row[4]).toMatch(/^\d\.\d{2} \[\d\.\d{2}, \d\.\d{2}\]$/);
        expect(row[5]).toMatch(/^\d+\.\d MiB \(cgroup-peak, n = 8\)$/);
        expect(row[6]).toMatch(/-bound$/);
      }
      expect(lead.bottom, 'the lead table ends inside the first 800 px').toBeLessThanOrEqual(VIEWPORT.height);
      expect(lead.right).toBeLessThanOrEqual(VIEWPORT.width);

      const sentences = await page.$$eval('ul.lead li', (items) => items.map((li) => ({ text: li.textContent ?? '', bottom: li.getBoundingClientRect().bottom })));
      expect(sentences.find((s) => s.text.startsWith('At C=4 (model 2×20ms): podman-runsc'))!.text).toMatch(/^At C=4 \(model 2×20ms\): podman-runsc [\d.]+ \[[\d.]+, [\d.]+\] rollouts\/s against [\d.]+ \[[\d.]+, [\d.]+\] for podman-runc .*; memory [\d.]+ against [\d.]+ MiB per rollout \(P50, cgroup-peak, n = 8, 8\); both substrate-bound\.$/);
      expect(sentences.some((s) => /^Reward, \d+ paired attempts: podman-runsc .*McNemar exact p/.test(s.text))).toBe(true);
      for (const s of sentences) expect(s.bottom, s.text).toBeLessThanOrEqual(VIEWPORT.height);

      // The latency charts follow the lead.
      const firstChart = await page.$eval('figure.headline', (f) => f.getBoundingClientRect().top);
      expect(firstChart).toBeGreaterThan(Math.max(lead.bottom, ...sentences.map((s) => s.bottom)));
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
    // The console leads with the same table and sentences.
    const summary = terminalSummary(analyzed);
    expect(summary.indexOf('Rollouts per cell')).toBe(0);
    expect(summary.indexOf('At C=4 (model 2×20ms): podman-runsc')).toBeLessThan(summary.indexOf('wall_ms'));
  }, 120_000);
});
