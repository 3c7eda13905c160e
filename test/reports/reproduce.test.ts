import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { DEFAULT_PUBLISHED, mappingPathFor, readMapping, readPublished } from '../../reports/reproduce/published.ts';
import { reproduce } from '../../reports/reproduce/reproduce.ts';
import { makeSyntheticBundle } from './synthetic-bundle.ts';
import { runCli } from './run-cli.ts';
import { kindCatalog } from '../../cli/kinds.ts';

const kinds = await kindCatalog();

const published = readPublished(DEFAULT_PUBLISHED);
const mapping = readMapping(mappingPathFor(DEFAULT_PUBLISHED));

function repairBundle(slowdown?: Record<string, number>) {
  const dir = makeSyntheticBundle({
    experiment: 'repair',
    seed: 401,
    blocks: 12,
    slowdown,
    arms: [
      { backend: 'host', medians: { completion_ms: 440, result_ms: 430 } },
      { backend: 'staged', medians: { completion_ms: 630, result_ms: 550 } },
      { backend: 'docker', medians: { completion_ms: 810, result_ms: 740 } },
      { backend: 'qemu-microvm', medians: { completion_ms: 1400, result_ms: 1350 } },
      { backend: 'qemu-q35', medians: { completion_ms: 1460, result_ms: 1410 } },
    ],
    compare: [{ candidate: 'staged', control: 'docker', metric: 'completion_ms' }],
  });
  analyzeBundle(dir, kinds);
  return dir;
}

describe('sandbench reproduce', () => {
  it('ships the published figures as project data, every row accounted for', () => {
    expect(published.length).toBe(241);
    expect(DEFAULT_PUBLISHED).toMatch(/data\/published\/pvisor-2026-10\.csv$/);
    const staged = published.find((p) => p.topic === 'repair_to_exit' && p.backend === 'pvisor-staged' && p.statistic === 'completion_ms_P50');
    expect(staged?.value).toBeCloseTo(635.920337, 6);
  });

  it('matches what a repair run can reproduce and lists every other published row with why', async () => {
    const dir = repairBundle();
    const result = reproduce(analyzeBundle(dir, kinds, { write: false }), published, mapping);
    expect(result.matched.length + result.unmatched.length).toBe(published.length);
    const keys = result.matched.map((m) => `${m.published.backend}/${m.published.statistic}`);
    expect(keys).toEqual(expect.arrayContaining(['native/completion_ms_P50', 'pvisor-staged/completion_ms_P50', 'docker/completion_ms_P50', 'qemu/completion_ms_P50', 'qemu-microvm/result_ms_P50', 'pvisor-staged minus docker/completion_diff_of_medians']));
    const staged = result.matched.find((m) => m.published.backend === 'pvisor-staged' && m.published.statistic === 'completion_ms_P50')!;
    expect(staged.variant).toBe('staged');
    expect(staged.ours.ciLow).toBeLessThan(staged.ours.value!);
    expect(staged.ours.ciHigh).toBeGreaterThan(staged.ours.value!);
    expect(staged.reference).toBe('docker');
    expect(staged.publishedRatio).toBeCloseTo(635.920337 / 811.7639565, 6);
    const diff = result.matched.find((m) => m.statistic === 'diff_of_medians')!;
    expect(diff.ours.ciLow).not.toBeNull();
    const why = (backend: string, statistic: string) => result.unmatched.find((u) => u.published.backend === backend && u.published.statistic === statistic)?.reason;
    expect(why('pvisor-vm', 'completion_ms_P50')).toMatch(/arm pvisor:vm not in this bundle/);
    expect(why('firecracker', 'completion_ms_P50')).toMatch(/Firecracker/);
    expect(why('docker', 'completion_ms_P95_reference')).toMatch(/our n = 12 < 30/);
    expect(why('native', 'ready_ms_P50')).toMatch(/needs a shell-ready run/);
    expect(why('pvisor-vm/claude', 'completion_ms')).toBeTruthy();
    const ordering = result.orderings.find((o) => o.id === 'repair-staged-lt-docker')!;
    expect(ordering.status).toBe('holds');
    expect(ordering.publishedRatio).toBeCloseTo(811.7639565 / 635.920337, 6);
    expect(result.orderings.find((o) => o.id === 'shell-microvm-lt-q35')!.status).toBe('not checked');

    const cli = await runCli(['reproduce', dir]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/published row\(s\) matched/);
    expect(cli.stdout).toMatch(/needs a density run; this bundle is repair/);
    const csv = readFileSync(join(dir, 'reproduction.csv'), 'utf8').trim().split('\n');
    expect(csv).toHaveLength(published.length + 1);
    expect(readFileSync(join(dir, 'reproduction.md'), 'utf8')).toMatch(/Every unmatched published row, with why/);
  });

  it('reports an ordering that does not hold here as reversed', () => {
    // staged made 1.5× slower: 945 ms > docker's 810 ms, against the published staged < Docker.
    const result = reproduce(analyzeBundle(repairBundle({ staged: 1.5 }), kinds, { write: false }), published, mapping);
    expect(result.orderings.find((o) => o.id === 'repair-staged-lt-docker')!.status).toBe('reversed');
  });

  it('lazy-image: checks content bytes ≪ full pull on lazy:cold vs full:cold arms', () => {
    const dir = makeSyntheticBundle({
      experiment: 'lazy-image',
      seed: 402,
      blocks: 10,
      arms: [
        { backend: 'full', variant: 'cold', medians: { ready_ms: 600, content_bytes: 41_842_292 } },
        { backend: 'lazy', variant: 'cold', medians: { ready_ms: 185, content_bytes: 2_580_417 } },
      ],
    });
    analyzeBundle(dir, kinds);
    const result = reproduce(analyzeBundle(dir, kinds, { write: false }), published, mapping);
    const bytes = result.orderings.find((o) => o.id === 'lazy-content-bytes')!;
    expect(bytes.status).toBe('holds');
    expect(bytes.ourRatio).toBeGreaterThan(5);
    expect(result.matched.some((m) => m.published.backend === 'lazy/cold' && m.published.statistic === 'ready_ms_P50')).toBe(true);
  });
});
