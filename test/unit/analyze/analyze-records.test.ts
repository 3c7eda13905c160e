import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AnalysisInputError,
  analysisFiles,
  analyzeBundle,
  analyzeRecords,
  armsNotApplicable,
  armsWithoutValidTrials,
  type AnalysisInput,
  type KindAnalysis,
  COMPARISONS_HEADER,
  EVIDENCE_HEADER,
  SUMMARY_HEADER,
  type EvidenceRow,
} from '../../../harness/analyze/index.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../../harness/journal/trial-record.ts';
import { syntheticRecords, syntheticResolved } from './synthetic-journal.ts';
import { kindCatalog } from '../../../cli/kinds.ts';

const kinds = await kindCatalog();
/** The CSVs of one analysis, with the descriptor of the input's own kind (as `analyze` would pick it). */
const filesOf = (input: AnalysisInput, descriptor: KindAnalysis = kinds(input.resolved.spec.experiment)!.analysis) => analysisFiles(analyzeRecords(input, descriptor));
const rows = (csv: string) => Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true }).data;
const headerOf = (csv: string) => csv.slice(0, csv.indexOf('\n'));

describe('analyzeRecords: warnings', () => {
  it('says once per arm that its trials failed, naming every metric, not once per metric', () => {
    const resolved = syntheticResolved({ spec: { arms: [{ backend: 'docker' }, { backend: 'staged' }], resamples: 200 } });
    const records = syntheticRecords(resolved, { medians: { docker: 75, staged: 25 }, failureRate: 0.1 });
    const warnings = analyzeRecords({ resolved, records }, kinds(resolved.spec.experiment)!.analysis).warnings;
    const failedLines = warnings.filter((w) => w.includes('formal trials failed or were invalid'));
    const failedDocker = records.filter((r) => !r.warmup && r.arm.backend === 'docker' && r.outcome !== 'ok').length;
    expect(failedDocker).toBeGreaterThan(0);
    expect(failedLines.filter((w) => w.startsWith('docker '))).toEqual([`docker every metric (2): ${failedDocker} of 60 formal trials failed or were invalid.`]);
  });
});

describe('analyzeRecords: CSV contracts', () => {
  const resolved = syntheticResolved({ spec: { arms: [{ backend: 'docker' }, { backend: 'staged' }, { backend: 'podman' }], resamples: 500 } });
  const records = syntheticRecords(resolved, { medians: { docker: 75, staged: 25, podman: 74 }, failureRate: 0.05 });
  const files = filesOf({ resolved, records });

  it('writes the six files with the public headers exactly', () => {
    expect([...files.keys()].sort()).toEqual(['comparisons-detail.csv', 'comparisons.csv', 'diagnostics.csv', 'evidence.csv', 'samples.csv', 'summary.csv']);
    expect(headerOf(files.get('summary.csv')!)).toBe('benchmark_id,batch,mode,backend,metric,unit,planned,failed,capability,n,p50,p95_reference,minimum,maximum,distribution,low_n,low_p50,high_n,high_p50');
    expect(headerOf(files.get('comparisons.csv')!)).toBe('batch,benchmark_id,mode,candidate,control,metric,unit,n,difference_ms,ci95_low_ms,ci95_high_ms,conclusion,confidence_method,ratio,ratio_ci95_low,ratio_ci95_high');
    expect(headerOf(files.get('evidence.csv')!)).toBe('scenario,topic,source,cohort,variant,metric,statistic,n,value,unit,condition,limitations');
    expect(headerOf(files.get('samples.csv')!)).toBe('run_id,trial_id,experiment,arm,backend,variant,block,position,warmup,outcome,failure_category,metric,value,unit');
    expect(SUMMARY_HEADER.join(',')).toBe(headerOf(files.get('summary.csv')!));
    expect(COMPARISONS_HEADER.join(',')).toBe(headerOf(files.get('comparisons.csv')!));
    expect(EVIDENCE_HEADER.join(',')).toBe(headerOf(files.get('evidence.csv')!));
  });

  it('is byte-identical on a second run', () => {
    const again = filesOf({ resolved, records: structuredClone(records) });
    for (const [name, content] of files) expect(again.get(name), name).toBe(content);
  });

  it('keeps failed trials in planned/failed and out of the timing sample; warmups out of both', () => {
    const formal = records.filter((r) => !r.warmup && r.arm.backend === 'docker');
    const failed = formal.filter((r) => r.outcome !== 'ok').length;
    expect(failed).toBeGreaterThan(0); // the fixture really has failures
    const docker = rows(files.get('summary.csv')!).find((r) => r.backend === 'docker' && r.metric === 'ready_ms')!;
    expect(Number(docker.planned)).toBe(60);
    expect(Number(docker.failed)).toBe(failed);
    expect(Number(docker.n)).toBe(60 - failed);
    expect(docker.capability).toBe('measured');
    expect(docker.p95_reference).not.toBe('');
    const diagnostics = rows(files.get('diagnostics.csv')!).find((r) => r.backend === 'docker' && r.metric === 'ready_ms')!;
    expect(JSON.parse(diagnostics.failure_categories!)).toEqual({ timeout: failed });
  });

  it('samples.csv has every trial, warmups and failures included, values unrounded', () => {
    const samples = rows(files.get('samples.csv')!);
    expect(new Set(samples.map((r) => r.trial_id)).size).toBe(records.length);
    expect(samples.some((r) => r.warmup === 'true')).toBe(true);
    const failedRow = samples.find((r) => r.outcome === 'failed')!;
    expect(failedRow.failure_category).toBe('timeout');
    expect(failedRow.value).toBe('');
    const first = records.find((r) => r.outcome === 'ok')!;
    expect(samples.find((r) => r.trial_id === first.trial_id && r.metric === 'ready_ms')!.value).toBe(String(first.metrics.ready_ms));
  });

  it('defaults to every other arm against the first arm on each timing metric, dropping blocks with a failure', () => {
    const comparisons = rows(files.get('comparisons.csv')!);
    expect(comparisons.map((c) => `${c.candidate}-${c.control}-${c.metric}`)).toEqual([
      'staged-docker-ready_ms',
      'podman-docker-ready_ms',
      'staged-docker-completion_ms',
      'podman-docker-completion_ms',
    ]);
    const staged = comparisons[0]!;
    expect(staged.conclusion).toBe('candidate faster');
    expect(staged.confidence_method).toMatch(/500 resamples; pure-rand xoroshiro128plus, seed scrambled by splitmix64; seed \d+ \(run-synthetic:ready_ms:staged\)/);
    const okBlocks = (arm: string) => new Set(records.filter((r) => !r.warmup && r.outcome === 'ok' && r.arm.backend === arm).map((r) => r.block));
    const both = [...okBlocks('staged')].filter((b) => okBlocks('docker').has(b)).length;
    expect(Number(staged.n)).toBe(both);
    const detail = rows(files.get('comparisons-detail.csv')!)[0]!;
    expect(Number(detail.n_pairs)).toBe(both);
    expect(Number(detail.dropped_blocks)).toBe(60 - both);
    expect(detail.design).toBe('paired blocks');
  });
});

describe('analyzeRecords: evidence and declared comparisons', () => {
  // Published medians (pVisor study, repair_to_exit cohort 6t, completion P50): staged 635.920337 ms,
  // Docker 811.7639565 ms. 60 paired values per arm whose two middle values equal the median.
  function publishedRecords(runId: string): TrialRecord[] {
    const around = (m: number) => [...Array.from({ length: 29 }, (_, k) => m - (29 - k)), m, m, ...Array.from({ length: 29 }, (_, k) => m + k + 1)];
    const values: Record<string, number[]> = { staged: around(635.920337), docker: around(811.7639565) };
    const out: TrialRecord[] = [];
    for (let block = 0; block < 60; block++) {
      for (const backend of ['docker', 'staged']) {
        const v = values[backend]![(block * 7) % 60]!; // same permutation for both arms: block-paired
        out.push({
          run_id: runId, schema_version: TRIAL_SCHEMA_VERSION, experiment: 'repair', arm: { backend, variant: null }, block, position: out.length,
          trial_id: `b${block}-${backend}`, warmup: false, seed: 1, outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null,
          ready_ms: null, result_ms: null, completion_ms: v, metrics: { completion_ms: v }, validity: {}, notes: [], facts: { accelerator: 'tcg' },
        });
      }
    }
    return out;
  }

  it('the published medians give a difference of −175.8436195 ms in an evidence row', () => {
    const resolved = syntheticResolved({
      runId: 'run-published',
      spec: { name: 'repair', experiment: 'repair', compare: [{ candidate: 'staged', control: 'docker', metric: 'completion_ms' }], resamples: 1000 },
    });
    const files = filesOf({ resolved, records: publishedRecords('run-published') });
    const evidence = rows(files.get('evidence.csv')!);
    const p50 = (variant: string) => evidence.find((r) => r.variant === variant && r.statistic === 'P50')!;
    expect(Number(p50('staged').value)).toBe(635.920337);
    expect(Number(p50('docker').value)).toBe(811.7639565);
    const diff = evidence.find((r) => r.variant === 'staged minus docker' && r.statistic === 'diff_of_medians')!;
    expect(diff).toMatchObject({ scenario: 'repair', topic: 'repair_to_exit', source: 'sandbench', cohort: 'run-published', metric: 'completion_ms', n: '60', unit: 'ms' });
    expect(Number(diff.value)).toBeCloseTo(-175.8436195, 9);
    expect(diff.value).toBe(String(635.920337 - 811.7639565)); // full precision, never rounded
    expect(diff.limitations).toContain('TCG, no KVM');
    expect(evidence.some((r) => r.statistic === 'diff_ci95_low')).toBe(true);
    expect(rows(files.get('comparisons.csv')!)[0]).toMatchObject({ candidate: 'staged', control: 'docker', difference_ms: String(635.920337 - 811.7639565) });
  });

  it('a declared comparison naming an unknown arm is an input error naming the field', () => {
    const resolved = syntheticResolved({ spec: { compare: [{ candidate: 'firecracker', control: 'docker', metric: 'ready_ms' }], resamples: 100 } });
    expect(() => filesOf({ resolved, records: syntheticRecords(resolved) })).toThrow(AnalysisInputError);
    expect(() => filesOf({ resolved, records: syntheticRecords(resolved) })).toThrow(/spec\.compare\[0\]\.candidate "firecracker"/);
  });

  it('an arm whose every trial failed is "unavailable" with its failures counted, and its comparison says "insufficient data"', () => {
    const resolved = syntheticResolved({ spec: { resamples: 100, trials: 10 } });
    const records = syntheticRecords(resolved).map((r) =>
      r.arm.backend === 'staged' && !r.warmup ? { ...r, outcome: 'failed' as const, failure_category: 'setup_failed' as const, metrics: {} } : r,
    );
    const files = filesOf({ resolved, records });
    const staged = rows(files.get('summary.csv')!).find((r) => r.backend === 'staged' && r.metric === 'ready_ms')!;
    expect(staged).toMatchObject({ planned: '10', failed: '10', capability: 'unavailable', n: '0', p50: '', minimum: '' });
    expect(rows(files.get('comparisons.csv')!)[0]!.conclusion).toBe('insufficient data');
  });

  it('an unfinished run says so in the limitations (blocks recorded of blocks planned)', () => {
    const resolved = syntheticResolved({ spec: { resamples: 100, trials: 10 } });
    const records = syntheticRecords(resolved).filter((r) => r.warmup || r.block < 7);
    const evidence = rows(filesOf({ resolved, records }).get('evidence.csv')!);
    expect(evidence.find((r) => r.variant === 'docker' && r.statistic === 'P50')!.limitations).toContain('run incomplete: 7 of 10 planned blocks recorded');
  });

  it('arms skipped at preflight stay visible as unavailable with the reason', () => {
    const resolved = { ...syntheticResolved({ spec: { resamples: 100, trials: 10 } }), skipped_arms: [{ arm: 'qemu-microvm', reason: 'no /dev/kvm' }] };
    const files = filesOf({ resolved, records: syntheticRecords(resolved) });
    expect(rows(files.get('summary.csv')!).find((r) => r.backend === 'qemu-microvm')).toMatchObject({ capability: 'unavailable', planned: '0' });
    expect(rows(files.get('evidence.csv')!).find((r) => r.variant === 'qemu-microvm')).toMatchObject({ statistic: 'unavailable_failed_preflight', limitations: 'no /dev/kvm' });
  });

  it('a bimodal arm is reported as two clusters (n = cluster size) and its comparison refuses a verdict', () => {
    const resolved = syntheticResolved({ spec: { resamples: 200, trials: 40, warmups: 0 } });
    const records = syntheticRecords(resolved, { medians: { docker: 75, staged: 25 } }).map((r) =>
      r.arm.backend === 'staged' && r.block % 2 === 1 ? { ...r, metrics: { ...r.metrics, ready_ms: r.metrics.ready_ms! * 3 } } : r,
    );
    const files = filesOf({ resolved, records });
    const staged = rows(files.get('summary.csv')!).find((r) => r.backend === 'staged' && r.metric === 'ready_ms')!;
    expect(staged).toMatchObject({ distribution: 'separated-clusters', p50: '', low_n: '20', high_n: '20' });
    const evidence = rows(files.get('evidence.csv')!).filter((r) => r.variant === 'staged' && r.metric === 'ready_ms');
    expect(evidence.map((r) => `${r.statistic}:${r.n}`)).toEqual(['low_cluster_median:20', 'high_cluster_median:20', 'P95_reference:40', 'count:40']);
    expect(rows(files.get('comparisons.csv')!)[0]!.conclusion).toBe('separated distribution; inspect clusters');
  });
});

describe('kind extensions', () => {
  it("a kind descriptor's pure extension adds files and evidence rows; it may not overwrite a core file", () => {
    const resolved = syntheticResolved({ spec: { resamples: 100, trials: 5 } });
    const records = syntheticRecords(resolved);
    const row: EvidenceRow = { scenario: 'active_capacity', topic: 'active_capacity', source: 'sandbench', cohort: resolved.run_id, variant: 'docker', metric: 'full_valid_no_oom_batches', statistic: 'count', n: 5, value: 5, unit: 'count', condition: 'c', limitations: '' };
    const base = kinds('shell-ready')!.analysis;
    const files = filesOf({ resolved, records }, { ...base, files: ['density-summary.csv'], extension: (input) => ({ files: new Map([['density-summary.csv', `n,${input.records.length}\n`]]), evidence: [row] }) });
    expect(files.get('density-summary.csv')).toBe(`n,${records.length}\n`);
    expect(files.get('evidence.csv')!.trimEnd().split('\n').at(-1)).toBe('active_capacity,active_capacity,sandbench,run-synthetic,docker,full_valid_no_oom_batches,count,5,5,count,c,');
    expect(() => filesOf({ resolved, records }, { ...base, files: ['summary.csv'], extension: () => ({ files: new Map([['summary.csv', 'x']]), evidence: [] }) })).toThrow(/overwrite summary\.csv/);
    // A file the descriptor does not declare is refused: the bundle layout stays complete.
    expect(() => filesOf({ resolved, records }, { ...base, extension: () => ({ files: new Map([['extra.csv', 'x']]), evidence: [] }) })).toThrow(/does not declare/);
  });
});

describe('analyzeBundle (I/O shell)', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the CSVs into the bundle, byte-identical on a second run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-analyze-test-'));
    dirs.push(dir);
    const resolved = syntheticResolved({ spec: { resamples: 300, trials: 20 } });
    writeFileSync(join(dir, 'resolved-spec.json'), JSON.stringify(resolved, null, 2));
    writeFileSync(join(dir, 'journal.jsonl'), syntheticRecords(resolved, { failureRate: 0.1 }).map((r) => `${JSON.stringify(r)}\n`).join(''));
    const first = analyzeBundle(dir, kinds);
    const bytes = first.files.map((f) => readFileSync(join(dir, f)));
    analyzeBundle(dir, kinds);
    first.files.forEach((f, i) => expect(readFileSync(join(dir, f)).equals(bytes[i]!), f).toBe(true));
  });

  it('names the missing file when the directory is not a bundle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-analyze-test-'));
    dirs.push(dir);
    expect(() => analyzeBundle(dir, kinds)).toThrow(/resolved-spec\.json: missing/);
  });
});

describe('arms without valid trials, and arms not applicable', () => {
  it('an arm whose every trial is not_applicable is named apart and counted neither as infrastructure nor as task', () => {
    const resolved = syntheticResolved({ spec: { arms: [{ backend: 'docker' }, { backend: 'staged' }, { backend: 'podman' }], resamples: 200 } });
    const fail = (r: TrialRecord, category: 'not_applicable' | 'task_failed'): TrialRecord => ({ ...r, outcome: 'failed', failure_category: category, metrics: {} });
    const records = syntheticRecords(resolved, { medians: { docker: 75, staged: 25, podman: 74 } }).map((r) =>
      r.arm.backend === 'docker' ? fail(r, 'not_applicable') : r.arm.backend === 'podman' ? fail(r, 'task_failed') : r,
    );
    const analysis = analyzeRecords({ resolved, records }, kinds(resolved.spec.experiment)!.analysis);
    const docker = analysis.trials.find((t) => t.arm === 'docker')!;
    expect(docker).toMatchObject({ planned: 60, ok: 0, failed: 60, infrastructure: 0, task: 0, byCategory: { not_applicable: 60 } });
    expect(armsNotApplicable(analysis)).toEqual([{ arm: 'docker', planned: 60 }]);
    // The task-failed arm still makes `run` exit 4; the not-applicable one does not.
    expect(armsWithoutValidTrials(analysis)).toEqual([{ arm: 'podman', planned: 60, dominant: 'task_failed' }]);
  });
});
