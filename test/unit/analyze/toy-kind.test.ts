/**
 * Acceptance (issue 12): adding a kind touches only its own folder plus one registry line. The toy
 * kind (./toy-kind/) is added to the real kind catalog here; generic analysis and the report then
 * honour its descriptor — grouping, scenario, primary metric, extra file, table and chart — and no
 * generic module names it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBundle, type KindCatalog } from '../../../harness/analyze/index.ts';
import { writeReport } from '../../../reports/index.ts';
import { terminalSummary } from '../../../reports/render/terminal-summary.ts';
import { kindCatalog } from '../../../cli/kinds.ts';
import { syntheticRecords, syntheticResolved } from './synthetic-journal.ts';
import { TOY_FILE, toyExperiment } from './toy-kind/toy-kind.ts';

const base = await kindCatalog();
// The one registry line a new kind adds.
const kinds: KindCatalog = (kind) => (kind === 'toy' ? toyExperiment : base(kind));

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sandbench-toy-kind-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tsFiles(path: string): string[] {
  return readdirSync(path).flatMap((name) => {
    const p = join(path, name);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('a toy kind added in a test', () => {
  // Generated as a known kind, then relabelled: the spec schema's kind list is the one place outside the folder a runnable new kind must be named.
  const generated = syntheticResolved({ runId: 'run-toy', spec: { name: 'toy', arms: [{ backend: 'host' }, { backend: 'staged' }], trials: 8, warmups: 1, resamples: 200 } });
  const resolved = { ...generated, spec: { ...generated.spec, experiment: 'toy' as typeof generated.spec.experiment } };
  const records = syntheticRecords(generated, { medians: { host: 5, staged: 15 } }).map((r) => ({
    ...r,
    experiment: 'toy',
    metrics: { spin_ms: r.metrics.ready_ms! },
    facts: { flavour: r.block % 2 === 0 ? 'even' : 'odd' },
  }));
  writeFileSync(join(dir, 'resolved-spec.json'), JSON.stringify(resolved, null, 2));
  writeFileSync(join(dir, 'journal.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const analyzed = analyzeBundle(dir, kinds);

  it('is analysed by its descriptor: groups, scenario, primary metric and its own file', () => {
    expect(analyzed.analysis.arms).toEqual(['host:even', 'host:odd', 'staged:even', 'staged:odd']);
    expect(analyzed.analysis.primaryMetrics).toEqual(['spin_ms']);
    expect(new Set(analyzed.analysis.evidence.map((e) => `${e.scenario}/${e.topic}`))).toEqual(new Set(['toy_scenario/toy_topic']));
    expect(analyzed.files).toContain(TOY_FILE);
    expect(readFileSync(join(dir, TOY_FILE), 'utf8')).toBe(`what,count\ntrials,${records.filter((r) => !r.warmup).length}\nok,${records.filter((r) => !r.warmup && r.outcome === 'ok').length}\n`);
  });

  it('is rendered by the generic report and terminal summary', () => {
    writeReport(analyzed);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain('**Toy counts**');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/<figure id="plot-toy-chart" class="plot">\n<svg/);
    expect(terminalSummary(analyzed).startsWith('spin_ms (ms)')).toBe(true);
  });

  it('no generic module (harness/, reports/, cli/) names the toy kind', () => {
    const generic = ['harness', 'reports', 'cli'].flatMap((d) => tsFiles(join(ROOT, d)));
    expect(generic.length).toBeGreaterThan(50);
    expect(generic.filter((f) => /\btoy\b/.test(readFileSync(f, 'utf8')))).toEqual([]);
  });
});
