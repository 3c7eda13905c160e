import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { analyzeFleet, FLEET_FILES, HOST_FACT } from '../../harness/fleet/fleet-analysis.ts';
import { analysisFiles, analyzeRecords, fallbackAnalysis } from '../../harness/analyze/index.ts';
import { renderFleetReport } from '../../reports/fleet/fleet-report.ts';
import { plan, record, resolved } from './fleet-fixtures.ts';

function rows(csv: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(csv.trim(), { header: true }).data;
}

describe('fleet analysis: host as a block', () => {
  const full = plan({ trials: 12, warmups: 1 });
  // Blocks 0..5 on node-a (fast), 6..11 on node-b (10× slower); staged is +2 ms on a, +20 ms on b.
  const hostOf = (block: number) => (block < 6 ? 'node-a' : 'node-b');
  const value = (arm: string, block: number) => (hostOf(block) === 'node-a' ? 10 : 100) * (1 + 0.01 * (block % 3)) + (arm === 'staged' ? (hostOf(block) === 'node-a' ? 2 : 20) : 0);
  const records = full.trials.map((t) => record(t, 'r', value(t.arm.backend, t.block), { [HOST_FACT]: hostOf(t.block) }));
  const input = { resolved: resolved('fleet-x'), records };
  const files = analyzeFleet(input);

  it('summarizes each host apart', () => {
    const summary = rows(files.get(FLEET_FILES.perHostSummary)!);
    const p50 = (host: string, arm: string) => Number(summary.find((r) => r.host === host && r.backend === arm && r.metric === 'ready_ms')!.p50);
    expect(summary.filter((r) => r.metric === 'ready_ms').map((r) => [r.host, r.backend, r.n])).toEqual([['node-a', 'host', '6'], ['node-a', 'staged', '6'], ['node-b', 'host', '6'], ['node-b', 'staged', '6']]);
    expect(p50('node-a', 'host')).toBeCloseTo(10.1, 6);
    expect(p50('node-b', 'host')).toBeCloseTo(101, 6);
  });

  it('compares within each host and combines across hosts without pooling', () => {
    const comparisons = rows(files.get(FLEET_FILES.comparisons)!);
    const within = comparisons.filter((r) => r.scope === 'host');
    expect(within.map((r) => [r.host, Number(r.difference_ms)])).toEqual([['node-a', 2], ['node-b', 20]]);
    const combined = comparisons.find((r) => r.scope === 'combined')!;
    expect(combined.hosts).toBe('2');
    expect(combined.n).toBe('12');
    expect(Number(combined.difference_ms)).toBeCloseTo(11, 9);
    expect(combined.conclusion).toBe('candidate slower');
    expect(combined.confidence_method).toMatch(/stratified bootstrap over 2 host\(s\)/);
  });

  it('is deterministic, and on one host reproduces the ordinary analysis exactly', () => {
    expect(analyzeFleet(input)).toEqual(files);
    const oneHost = records.map((r) => ({ ...r, facts: { [HOST_FACT]: 'node-a' } }));
    const fleet = analyzeFleet({ resolved: resolved('fleet-y'), records: oneHost });
    const plain = analysisFiles(analyzeRecords({ resolved: resolved('fleet-y'), records: oneHost }, fallbackAnalysis('shell-ready')));
    const summary = rows(plain.get('summary.csv')!);
    const perHost = rows(fleet.get(FLEET_FILES.perHostSummary)!);
    expect(perHost.map(({ host: _h, ...rest }) => rest)).toEqual(summary);
    const comparison = rows(plain.get('comparisons.csv')!)[0]!;
    const within = rows(fleet.get(FLEET_FILES.comparisons)!).find((r) => r.scope === 'host')!;
    for (const [fleetKey, key] of [['difference_ms', 'difference_ms'], ['ci95_low_ms', 'ci95_low_ms'], ['ci95_high_ms', 'ci95_high_ms'], ['ratio', 'ratio'], ['conclusion', 'conclusion'], ['n', 'n']] as const) expect(within[fleetKey]).toBe(comparison[key]);
    const combined = rows(fleet.get(FLEET_FILES.comparisons)!).find((r) => r.scope === 'combined')!;
    expect(combined.difference_ms).toBe(comparison.difference_ms);
  });

  it('renders the per-host panel from the same files', () => {
    const md = renderFleetReport({ title: 't', perHostSummary: files.get(FLEET_FILES.perHostSummary)!, fleetComparisons: files.get(FLEET_FILES.comparisons)!, hosts: 2 });
    expect(md).toContain('| arm | metric | node-a | node-b |');
    expect(md).toContain('| host | ready_ms | 10.1 (n=6/6) | 101 (n=6/6) |');
    expect(md).toMatch(/\| combined \| 2 hosts \| staged \| host \| ready_ms \| 12 \| 11 ms \[/);
    expect(md).toContain('summary.csv and comparisons.csv pool hosts');
  });

  it('refuses records without a host (not a merged bundle)', () => {
    expect(() => analyzeFleet({ resolved: resolved('z'), records: full.trials.map((t) => record(t, 'r', 1)) })).toThrow(/fleet_host/);
  });
});
