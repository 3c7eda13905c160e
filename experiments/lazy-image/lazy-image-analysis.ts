/**
 * `uncached_image` evidence rows the generic per-arm tables cannot give, as a PURE analysis
 * extension (no files, no processes): whether the campaign is valid (any accounting or teardown
 * failure invalidates every figure of the run), how many warm launches fetched nothing, the byte
 * figures as `constant_per_sample` when every valid sample agrees (pVisor's wording), and the cold
 * content reduction of lazy against the full pull. Timing P50s and the paired CI come from the
 * generic summary/comparison tables (arms `lazy:cold`, `full:cold`, ...; block = round).
 */
import type { AnalysisInput, KindAnalysis, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import { latestPerTrial } from '../../harness/analyze/arm-metric.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { summarize } from '../../harness/stats/index.ts';

const BYTE_METRICS = ['content_bytes', 'metadata_bytes', 'response_bytes', 'requests'] as const;
const LIMITS = 'loopback services prepared outside timing; server page cache warm; not WAN; lazy = squashfs via httpfs2 (one request in flight), full = podman pull of one gzip layer';
const VM_LIMITS = 'loopback content service prepared outside timing; server page cache warm; not WAN; qemu-microvm guest; vm-lazy = the ext4 image disk over HTTP (QEMU curl driver, copy-on-read qcow2 overlay), vm-full = GET of the whole raw disk, then boot';
/** The (lazy, full) variant pairs a run may hold: the clients, and the VM image disk. */
const PAIRS = [['lazy', 'full'], ['vm-lazy', 'vm-full']] as const;

const formal = (records: readonly TrialRecord[], label: string) => records.filter((r) => !r.warmup && armLabel(r.arm) === label);
const valid = (r: TrialRecord) => r.outcome === 'ok';

export function campaignInvalidReasons(records: readonly TrialRecord[]): string[] {
  const reasons = new Set<string>();
  for (const record of records) {
    if (record.facts.campaign_valid === false) {
      const listed = record.facts.campaign_invalid_reasons;
      for (const reason of Array.isArray(listed) ? listed : ['unspecified']) reasons.add(String(reason));
    }
  }
  return [...reasons].sort();
}

export function lazyImageAnalysis(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const records = latestPerTrial(input.records).filter((r) => r.experiment === 'lazy-image');
  const base = { scenario: 'uncached_image', topic: 'lazy_image_shell', source: EVIDENCE_SOURCE, cohort: input.resolved.run_id, condition: conditionOf(spec) };
  const evidence: EvidenceRow[] = [];
  const reasons = campaignInvalidReasons(records);
  evidence.push({ ...base, variant: 'campaign', metric: 'campaign_valid', statistic: 'single_observation', n: records.length, value: reasons.length === 0 ? 'valid' : 'invalid', unit: 'state', limitations: reasons.join(' | ') });

  for (const [label, check] of [['lazy:warm', 'warm_zero_content'], ['full:warm', 'warm_zero_blobs'], ['vm-lazy:warm', 'warm_zero_content'], ['vm-full:warm', 'warm_zero_content']] as const) {
    const warm = formal(records, label);
    if (warm.length === 0) continue;
    const passed = warm.filter((r) => r.validity[check] === 'pass').length;
    evidence.push({ ...base, variant: label, metric: check, statistic: 'observed_true_count', n: warm.length, value: passed, unit: 'count', limitations: passed === warm.length ? '' : `${warm.length - passed} warm launch(es) fetched content` });
  }

  for (const label of PAIRS.flatMap(([lazy, full]) => [`${lazy}:cold`, `${full}:cold`, `${lazy}:warm`, `${full}:warm`])) {
    const limits = label.startsWith('vm-') ? VM_LIMITS : LIMITS;
    const all = formal(records, label);
    const ok = all.filter(valid);
    for (const metric of BYTE_METRICS) {
      const values = ok.map((r) => r.metrics[metric]).filter((v): v is number => typeof v === 'number');
      if (values.length === 0) continue;
      const constant = values.every((v) => v === values[0]);
      // Bytes are counts, not timings: report the value itself when every valid sample agrees, else the median.
      const value = constant ? values[0]! : summarize(values).overall_p50;
      evidence.push({ ...base, variant: label, metric, statistic: constant ? 'constant_per_sample' : 'P50', n: values.length, value, unit: metric === 'requests' ? 'count' : 'bytes', limitations: [limits, all.length > ok.length ? `${all.length - ok.length} failed/invalid launch(es) excluded` : ''].filter(Boolean).join('; ') });
    }
  }

  // Reduction of cold content bytes, paired by round: 1 − lazy/full per round, median over rounds.
  for (const [lazyVariant, fullVariant] of PAIRS) {
    const full = new Map(formal(records, `${fullVariant}:cold`).filter(valid).map((r) => [r.block, r.metrics.content_bytes]));
    const reductions = formal(records, `${lazyVariant}:cold`)
      .filter(valid)
      .map((r) => ({ lazy: r.metrics.content_bytes, full: full.get(r.block) }))
      .filter((p): p is { lazy: number; full: number } => typeof p.lazy === 'number' && typeof p.full === 'number' && p.full > 0)
      .map((p) => 1 - p.lazy / p.full);
    if (reductions.length === 0) continue;
    const what = lazyVariant === 'lazy' ? 'lazy counts squashfs bytes read, full counts compressed OCI blobs' : 'vm-lazy counts disk bytes the guest (and QEMU readahead) read, vm-full counts the whole raw disk';
    evidence.push({ ...base, variant: `${lazyVariant} vs ${fullVariant} (cold)`, metric: 'content_bytes_reduction', statistic: 'P50', n: reductions.length, value: summarize(reductions).overall_p50, unit: 'fraction', limitations: `paired by round; ${what}` });
  }
  return { files: new Map(), evidence };
}

export const lazyImageKindAnalysis: KindAnalysis = {
  scenario: 'uncached_image',
  topic: 'lazy_image_shell',
  primaryMetrics: ['ready_ms', 'content_bytes'],
  extension: lazyImageAnalysis,
};
