import { describe, expect, it } from 'vitest';
import { lazyImageAnalysis } from '../../experiments/lazy-image/lazy-image-analysis.ts';
import { auditBlobs, auditCounters, auditWarmLazy, emptyOutcome, toRecord, type CampaignState } from '../../experiments/lazy-image/lazy-record.ts';
import { buildLazyPlan } from '../../experiments/lazy-image/lazy-plan.ts';
import type { ResolvedSpec } from '../../harness/spec/resolve-spec.ts';
import { parseSpec } from '../../experiments/registry.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';

const spec = parseSpec({
  name: 'lazy', experiment: 'lazy-image', arms: [{ backend: 'staged', variant: 'lazy' }, { backend: 'podman', variant: 'full' }],
  warmups: 0, trials: 3, seed: 3, timeout: '60s', lazy: { rounds: 3, initial_rounds: 0, warmup_rounds: 0 },
});
const resolved = { run_id: 'r1', spec_path: 'x', spec_sha256: 'x', overrides: {}, skipped_arms: [], plan_arms: [], spec } as unknown as ResolvedSpec;
const blob = { digest: 'sha256:l', size: 1000, path: '/l', mediaType: 'layer' };

/** Records of a synthetic campaign; `warmFetch` makes round 1's warm lazy launch fetch content. */
function campaign(options: { warmFetch?: boolean; blobShort?: boolean } = {}): TrialRecord[] {
  const state: CampaignState = { invalidReasons: [] };
  return buildLazyPlan(spec).trials.map((planned) => {
    const outcome = emptyOutcome();
    outcome.t0 = 0n;
    outcome.observation = { exit: { exitCode: 0, signal: null, timedOut: false, tExitNs: 1n }, lines: [], readyMs: 10 + planned.block, resultMs: 11, completionMs: 12, readyCount: 1, resultCount: 1 };
    const cold = planned.arm.variant === 'cold';
    const lazy = planned.arm.backend === 'lazy';
    const content = !cold ? (lazy && options.warmFetch && planned.block === 1 ? 4096 : 0) : lazy ? 60 : 1000;
    auditCounters({ requests: content > 0 ? 2 : 0, connections: 1, contentBytes: content, bodyBytes: content, wireBytes: content > 0 ? content + 200 : 0, serviceMs: 0, byKind: {} }, outcome);
    if (lazy && !cold) auditWarmLazy(outcome);
    if (!lazy) {
      const got = cold ? { [blob.digest]: options.blobShort && planned.block === 2 ? 999 : 1000 } : {};
      auditBlobs([blob], got, cold ? { [blob.digest]: 1 } : {}, planned.arm.variant as 'cold' | 'warm', outcome);
    }
    return toRecord(planned, 'r1', state, outcome);
  });
}

const row = (rows: ReturnType<typeof lazyImageAnalysis>['evidence'], variant: string, metric: string) => rows.find((r) => r.variant === variant && r.metric === metric);

describe('lazy-image analysis', () => {
  it('reports a valid campaign, warm checks, constant byte figures and the paired content reduction', () => {
    const { evidence } = lazyImageAnalysis({ resolved, records: campaign() });
    expect(row(evidence, 'campaign', 'campaign_valid')).toMatchObject({ value: 'valid', n: 12 });
    expect(row(evidence, 'lazy:warm', 'warm_zero_content')).toMatchObject({ n: 3, value: 3 });
    expect(row(evidence, 'lazy:cold', 'content_bytes')).toMatchObject({ statistic: 'constant_per_sample', value: 60, n: 3 });
    expect(row(evidence, 'full:cold', 'content_bytes')).toMatchObject({ statistic: 'constant_per_sample', value: 1000 });
    expect(row(evidence, 'lazy vs full (cold)', 'content_bytes_reduction')?.value).toBeCloseTo(0.94, 10);
    expect(evidence.every((r) => r.scenario === 'uncached_image')).toBe(true);
  });

  it('counts a warm launch that fetched content and excludes it from byte figures', () => {
    const { evidence } = lazyImageAnalysis({ resolved, records: campaign({ warmFetch: true }) });
    expect(row(evidence, 'lazy:warm', 'warm_zero_content')).toMatchObject({ n: 3, value: 2 });
    expect(row(evidence, 'lazy:warm', 'content_bytes')).toMatchObject({ n: 2, value: 0 });
  });

  it('marks the whole campaign invalid when one pull does not match the manifest', () => {
    const { evidence } = lazyImageAnalysis({ resolved, records: campaign({ blobShort: true }) });
    const validity = row(evidence, 'campaign', 'campaign_valid');
    expect(validity?.value).toBe('invalid');
    expect(validity?.limitations).toContain('b0002-full:cold');
  });
});
