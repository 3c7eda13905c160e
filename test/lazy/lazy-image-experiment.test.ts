/**
 * One real round of the lazy-image experiment (plus the initial round): content service, httpfs2
 * client, docker-registry, podman pulls into empty stores, records, warm checks and teardown.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../harness/contracts/executor.ts';
import { mountsUnder, processAlive } from '../../services/lazy-content/mount-table.ts';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { lazyImageExperiment } from '../../experiments/lazy-image/lazy-image-kind.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { armLabel, TrialRecordSchema, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { stateDir } from '../../harness/state-dir.ts';

const runId = `tlazy${randomBytes(3).toString('hex')}`;
const records: TrialRecord[] = [];
let ctx: ExperimentContext;
let runDir = '';
let registryPid = 0;

beforeAll(async () => {
  const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
  const run: RunContext = { runId, image, stateDir: stateDir(), cleanup: new CleanupRegistry(runId), log: () => undefined, options: {} };
  const spec = parseSpec({
    name: 'lazy-test',
    experiment: 'lazy-image',
    arms: [{ backend: 'staged', variant: 'lazy' }, { backend: 'podman', variant: 'full' }],
    warmups: 0,
    trials: 1,
    seed: 11,
    timeout: '180s',
    lazy: { rounds: 1, initial_rounds: 1, warmup_rounds: 0 },
  });
  ctx = { run, spec, bundleDir: '/nonexistent', executorFor: () => { throw new Error('lazy-image uses no executor'); } };
  await lazyImageExperiment.prepare(ctx);
  const processes = run.cleanup.pending().map((handle) => handle.name);
  registryPid = Number(/docker-registry (\d+)/.exec(processes.join('\n'))?.[1]);
  runDir = processes.find((name) => name.includes(`sandbench-${runId}-lazy-`)) ?? '';
  for (const planned of lazyImageExperiment.plan(spec).trials) records.push(await lazyImageExperiment.runTrial(planned, ctx));
  await lazyImageExperiment.teardown(ctx);
}, 900_000);

afterAll(async () => {
  await ctx?.run.cleanup.releaseAll();
});

const find = (block: number, warmup: boolean, label: string) => records.find((r) => r.block === block && r.warmup === warmup && armLabel(r.arm) === label)!;

describe('lazy-image experiment', () => {
  it('writes one valid journal record per launch, all ok, campaign valid', () => {
    expect(records).toHaveLength(8);
    for (const record of records) {
      expect(TrialRecordSchema.parse(record)).toEqual(record);
      expect(record.outcome, `${record.trial_id}: ${record.notes.join('; ')}`).toBe('ok');
      expect(record.facts.campaign_valid).toBe(true);
      expect(record.ready_ms).toBeGreaterThan(0);
      expect(record.completion_ms!).toBeGreaterThanOrEqual(record.ready_ms!);
    }
    expect(records.filter((r) => r.warmup)).toHaveLength(4);
  });

  it('cold lazy fetches far fewer content bytes than a cold full pull, whose blob bytes equal the manifest', () => {
    const lazy = find(0, false, 'lazy:cold');
    const full = find(0, false, 'full:cold');
    expect(full.validity.blob_total_matches_manifest).toBe('pass');
    expect(full.metrics.content_bytes).toBe(full.facts.manifest_blob_total_bytes);
    expect(lazy.metrics.content_bytes).toBeGreaterThan(0);
    expect(lazy.metrics.content_bytes).toBeLessThan(full.metrics.content_bytes! * 0.1);
    expect(lazy.metrics.response_bytes).toBe(lazy.metrics.content_bytes! + lazy.metrics.metadata_bytes!);
    console.log(`round 0: lazy cold ready ${lazy.ready_ms?.toFixed(1)} ms / ${lazy.metrics.content_bytes} B in ${lazy.metrics.requests} requests; full cold ready ${full.ready_ms?.toFixed(1)} ms / ${full.metrics.content_bytes} B`);
  });

  it('warm launches fetch no content and no blobs', () => {
    for (const warmup of [true, false]) {
      const lazyWarm = find(0, warmup, 'lazy:warm');
      const fullWarm = find(0, warmup, 'full:warm');
      expect(lazyWarm.validity.warm_zero_content).toBe('pass');
      expect(lazyWarm.metrics.content_bytes).toBe(0);
      expect(fullWarm.validity.warm_zero_blobs).toBe('pass');
      expect(fullWarm.metrics.content_bytes).toBe(0);
      expect(lazyWarm.validity.client_teardown).toBe('pass');
      expect(fullWarm.validity.client_teardown).toBe('pass');
    }
  });

  it('teardown leaves no mount, no httpfs2 or registry process, no temp dir', async () => {
    expect(runDir).not.toBe('');
    expect(mountsUnder(runDir)).toEqual([]);
    expect(existsSync(runDir)).toBe(false);
    expect(processAlive(registryPid)).toBe(false);
    const httpfs2 = await execa('pgrep', ['-f', `httpfs2 .*${runDir}`], { reject: false });
    expect(httpfs2.stdout.trim()).toBe('');
    expect(ctx.run.cleanup.pending()).toEqual([]);
  });
});
