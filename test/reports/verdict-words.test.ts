/**
 * Verdict words follow the metric: times are faster/slower, anything else (bytes, MiB, counts) is
 * smaller/larger — in the sentence, the headline table and report.md's comparison table, on a real
 * analysed bundle whose spec compares a bytes metric.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { kindCatalog } from '../../cli/kinds.ts';
import { writeReport } from '../../reports/index.ts';
import { terminalSummary, verdictSentence } from '../../reports/render/terminal-summary.ts';
import { conclusionWords, isTimeMetric } from '../../reports/render/verdict-words.ts';
import type { ComparisonRow } from '../../reports/render/report-model.ts';
import { makeSyntheticBundle } from './synthetic-bundle.ts';

const row = (over: Partial<ComparisonRow>): ComparisonRow => ({
  candidate: 'vm-full:cold', control: 'vm-lazy:cold', metric: 'content_bytes', unit: 'bytes', n: '8',
  difference: 3e8, differenceLow: 2.9e8, differenceHigh: 3.1e8, ratio: 22.6, ratioLow: 22.1, ratioHigh: 23.0,
  conclusion: 'candidate slower', method: 'm', rankP: 0.004, holmP: 0.008, survivesHolm: true, ...over,
});

describe('verdict words', () => {
  it('a time says faster/slower; bytes, MiB and counts say smaller/larger', () => {
    expect(isTimeMetric('ready_ms', 'ms')).toBe(true);
    expect(isTimeMetric('ready_ms', '')).toBe(true);
    expect(isTimeMetric('content_bytes', 'bytes')).toBe(false);
    expect(isTimeMetric('barrier_memory_mib', 'MiB')).toBe(false);
    expect(verdictSentence(row({}))).toBe('vm-full:cold content_bytes is 22.6× [22.1, 23.0] larger than vm-lazy:cold; n = 8');
    expect(verdictSentence(row({ conclusion: 'candidate faster', ratio: 0.5, ratioLow: 0.4, ratioHigh: 0.625 }))).toMatch(/is 2\.00× \[1\.60, 2\.50\] smaller than vm-lazy:cold/);
    expect(verdictSentence(row({ metric: 'ready_ms', unit: 'ms' }))).toMatch(/is 22\.6× .* slower than vm-lazy:cold/);
    expect(verdictSentence(row({ conclusion: 'no detected difference' }))).toBe('vm-full:cold vs vm-lazy:cold on content_bytes: no detected difference; n = 8');
    expect(conclusionWords('candidate slower', 'peak_memory_mib', 'MiB')).toBe('candidate larger');
    expect(conclusionWords('candidate faster', 'completion_ms', 'ms')).toBe('candidate faster');
    expect(conclusionWords('insufficient data', 'content_bytes', 'bytes')).toBe('insufficient data');
  });

  it('a bundle comparing content bytes never calls the difference slower (terminal and report.md)', async () => {
    const kinds = await kindCatalog();
    const dir = makeSyntheticBundle({
      experiment: 'lazy-image', seed: 611, blocks: 8, warmups: 0,
      arms: [
        { backend: 'full', variant: 'cold', medians: { ready_ms: 900, content_bytes: 41_842_292 } },
        { backend: 'lazy', variant: 'cold', medians: { ready_ms: 180, content_bytes: 2_580_417 } },
      ],
      compare: [
        { candidate: 'full:cold', control: 'lazy:cold', metric: 'content_bytes' },
        { candidate: 'full:cold', control: 'lazy:cold', metric: 'ready_ms' },
      ],
    });
    const analyzed = analyzeBundle(dir, kinds);
    // The CSV keeps its fixed vocabulary; only the renderings change words.
    const csv = readFileSync(join(dir, 'comparisons.csv'), 'utf8');
    expect(csv).toMatch(/full:cold,lazy:cold,content_bytes,[^\n]*candidate slower/);
    writeReport(analyzed);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const text = terminalSummary(analyzed);
    for (const out of [md, text]) {
      expect(out).toMatch(/full:cold content_bytes is [\d.]+× \[[\d.]+, [\d.]+\] larger than lazy:cold/);
      expect(out).not.toMatch(/content_bytes[^\n]*slower/);
    }
    expect(md).toMatch(/full:cold ready_ms is [\d.]+× \[[\d.]+, [\d.]+\] slower than lazy:cold/);
    expect(md).toMatch(/\| full:cold \| lazy:cold \| content_bytes \|[^\n]*candidate larger \|/);
  });
});
