/**
 * The campaign join on fixture bundles: every published row once, matched by the bundle of its kind
 * or unmatched with the most specific reason (skipped entry, failed run, backend absent, n too small,
 * unsupported topic), orderings judged by the bundle that holds both arms; the CLI's --no-run join.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { kindCatalog } from '../../cli/kinds.ts';
import { DEFAULT_PUBLISHED, mappingPathFor, readMapping, readPublished } from '../../reports/reproduce/published.ts';
import { joinCampaign, type CampaignBundle } from '../../reports/reproduce/campaign-join.ts';
import { CAMPAIGN_SUMMARY_HEADER } from '../../reports/reproduce/campaign-output.ts';
import { makeSyntheticBundle } from '../reports/synthetic-bundle.ts';
import { runCli } from '../reports/run-cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const kinds = await kindCatalog();
const published = readPublished(DEFAULT_PUBLISHED);
const mapping = readMapping(mappingPathFor(DEFAULT_PUBLISHED));

function fixtureCampaign(dir: string) {
  const bundle = (id: string, options: Parameters<typeof makeSyntheticBundle>[0]) => {
    const path = makeSyntheticBundle({ ...options, dir: join(dir, id) });
    analyzeBundle(path, kinds);
    writeFileSync(join(path, 'manifest.json'), `${JSON.stringify({ complete: true })}\n`);
    return path;
  };
  bundle('repair', {
    experiment: 'repair', seed: 501, blocks: 8,
    arms: [
      { backend: 'host', medians: { completion_ms: 440 } },
      { backend: 'staged', medians: { completion_ms: 630 } },
      { backend: 'docker', medians: { completion_ms: 810 } },
    ],
    compare: [{ candidate: 'staged', control: 'docker', metric: 'completion_ms' }],
  });
  bundle('lazy-image-vm', {
    experiment: 'lazy-image', seed: 502, blocks: 6,
    arms: [
      { backend: 'vm-full', variant: 'cold', medians: { ready_ms: 12000, content_bytes: 337_641_472 } },
      { backend: 'vm-lazy', variant: 'cold', medians: { ready_ms: 9000, content_bytes: 14_942_208 } },
    ],
  });
  bundle('agent-cli', {
    experiment: 'agent', seed: 503, blocks: 6,
    arms: [
      { backend: 'host', variant: 'codex', medians: { completion_ms: 1900 } },
      { backend: 'staged', variant: 'codex', medians: { completion_ms: 2100 } },
      { backend: 'docker', variant: 'codex', medians: { completion_ms: 1500 } },
    ],
  });
}

const sourcesOf = async (dir: string): Promise<CampaignBundle[]> => {
  const load = (id: string) => analyzeBundle(join(dir, id), kinds, { write: false });
  return [
    { entry: 'repair', topics: ['repair_to_exit'], bundle: load('repair') },
    { entry: 'density', topics: ['active_capacity'], bundle: null, missingReason: 'skipped in --quick: too slow' },
    { entry: 'isolation', topics: ['workspace_boundary'], bundle: null, missingReason: 'failed: run failed (exit 1; see logs/)' },
    { entry: 'lazy-image-vm', topics: ['lazy_image_shell'], bundle: load('lazy-image-vm') },
    { entry: 'agent-cli', topics: ['cli_compatibility'], bundle: load('agent-cli') },
  ];
};

describe('reproduce --campaign join', () => {
  it('accounts for every published row once, with the most specific reason, and judges each ordering', async () => {
    const dir = tempDir('sandbench-campaign-join-');
    fixtureCampaign(dir);
    const result = joinCampaign(await sourcesOf(dir), published, mapping);
    expect(result.matched.length + result.unmatched.length).toBe(241);
    expect(new Set([...result.matched, ...result.unmatched].map((r) => r.published.row)).size).toBe(241);

    const match = (backend: string, statistic: string) => result.matched.find((m) => m.published.backend === backend && m.published.statistic === statistic);
    expect(match('pvisor-staged', 'completion_ms_P50')).toMatchObject({ entry: 'repair', variant: 'staged', reference: 'docker' });
    expect(match('pvisor-staged minus docker', 'completion_diff_of_medians')?.ours.ciLow).not.toBeNull();
    // cli_compatibility: published "X/codex" arms join ours "X:codex".
    expect(match('native/codex', 'completion_ms_P50')).toMatchObject({ entry: 'agent-cli', variant: 'host:codex' });
    expect(match('docker/codex', 'completion_ms_P50')?.variant).toBe('docker:codex');

    const why = (topic: string, backend: string, statistic?: string) => result.unmatched.find((u) => u.published.topic === topic && u.published.backend === backend && (!statistic || u.published.statistic === statistic))?.reason;
    expect(why('active_capacity', 'native')).toBe('kind density not run: density: skipped in --quick: too slow');
    expect(why('workspace_boundary', 'podman')).toMatch(/^kind isolation not run: isolation: failed: run failed/);
    expect(why('prepared_shell_ready', 'native')).toBe('kind shell-ready not run: no campaign entry reproduces topic prepared_shell_ready');
    expect(why('repair_to_exit', 'docker', 'completion_ms_P95_reference')).toMatch(/our n = 8 < 30/);
    expect(why('repair_to_exit', 'qemu')).toMatch(/arm qemu-q35 not in this bundle/);
    expect(why('cluster_execution', result.unmatched.find((u) => u.published.topic === 'cluster_execution')!.published.backend)).toMatch(/one host/);
    expect(why('cli_compatibility', 'firecracker/codex')).toMatch(/Firecracker/);
    expect(why('cli_compatibility', 'native/claude')).toMatch(/arm host:claude not in this bundle/);
    expect(why('lazy_image_shell', 'lazy/cold', 'ready_ms_P50')).toMatch(/arm lazy:cold not in this bundle/);

    const ordering = (id: string) => result.orderings.find((o) => o.id === id)!;
    expect(ordering('repair-staged-lt-docker')).toMatchObject({ entry: 'repair', status: 'holds' });
    expect(ordering('lazy-vm-content-bytes')).toMatchObject({ entry: 'lazy-image-vm', status: 'holds' });
    expect(ordering('lazy-vm-content-bytes').ourRatio!).toBeGreaterThan(5);
    // Docker faster than staged in this fixture: the published staged < Docker does not hold.
    expect(ordering('agent-staged-lt-docker-codex').status).toMatch(/^reversed/);
    expect(ordering('shell-staged-lt-docker')).toMatchObject({ status: 'not checked', reason: expect.stringMatching(/kind shell-ready not run/) });
    expect(result.entries.find((e) => e.entry === 'repair')!.matched).toBeGreaterThan(3);
  });

  it('joins an existing campaign directory from the CLI (--no-run): campaign-summary.csv, report.md, --json', async () => {
    const dir = tempDir('sandbench-campaign-cli-');
    fixtureCampaign(dir);
    const list = join(dir, 'list.yaml');
    const spec = (name: string) => join(process.cwd(), 'experiments/specs', name);
    writeFileSync(list, [
      'name: fixture',
      'entries:',
      `  - { id: repair, spec: ${spec('repair.yaml')}, topics: [repair_to_exit] }`,
      `  - { id: density, spec: ${spec('density.yaml')}, topics: [active_capacity], quick: { skip: too slow here } }`,
      `  - { id: lazy-image-vm, spec: ${spec('lazy-image-vm.yaml')}, topics: [lazy_image_shell] }`,
      `  - { id: agent-cli, spec: ${spec('agent-cli.yaml')}, topics: [cli_compatibility] }`,
      '',
    ].join('\n'));
    const cli = await runCli(['reproduce', '--campaign', dir, '--quick', '--no-run', '--list', list, '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const json = JSON.parse(cli.stdout) as { matched_count: number; unmatched_count: number; orderings: { id: string; status: string }[] };
    expect(json.matched_count + json.unmatched_count).toBe(241);
    expect(cli.stderr).toMatch(new RegExp(`${json.matched_count} of 241 published rows matched`));
    const csv = readFileSync(join(dir, 'campaign-summary.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe(CAMPAIGN_SUMMARY_HEADER.join(','));
    expect(csv).toHaveLength(242);
    expect(csv.some((line) => line.includes('skipped in --quick: too slow here'))).toBe(true);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(/published rows matched/);
    expect(readFileSync(join(dir, 'campaign-orderings.csv'), 'utf8')).toMatch(/lazy-vm-content-bytes/);

    const both = await runCli(['reproduce', join(dir, 'repair'), '--campaign', dir]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/either a bundle or --campaign/);
  });
});
