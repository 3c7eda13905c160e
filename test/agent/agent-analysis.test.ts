import { describe, expect, it } from 'vitest';
import { agentExtension, AGENT_SUMMARY_FILE, summarizeArms } from '../../experiments/agent/agent-analysis.ts';
import type { AnalysisInput } from '../../harness/analyze/kind-analysis.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { parseSpec } from '../../experiments/registry.ts';

function record(arm: string, index: number, outcome: TrialRecord['outcome'], metrics: Record<string, number>, facts: Record<string, unknown> = {}, warmup = false): TrialRecord {
  const [backend, variant] = arm.split(':');
  return {
    run_id: 'r', schema_version: 1, experiment: 'agent', arm: { backend: backend!, variant: variant! }, block: index, position: 0, trial_id: `${arm}-${index}`, warmup, seed: 1,
    outcome, failure_category: outcome === 'ok' ? null : 'task_failed', exit_code: outcome === 'ok' ? 0 : 132, t_spawn_ns: '1', ready_ms: null, result_ms: null, completion_ms: metrics.completion_ms ?? null,
    metrics, validity: {}, notes: [], facts: { agent: variant!.split('@')[0], ...facts },
  };
}

const spec = parseSpec({ name: 'a', experiment: 'agent', arms: [{ backend: 'host', variant: 'codex' }, { backend: 'qemu-microvm', variant: 'claude@cpu-qemu64' }], warmups: 1, trials: 8, seed: 1, timeout: '60s' });

describe('agent analysis', () => {
  const records = [
    record('host:codex', 0, 'ok', { first_request_ms: 999, completion_ms: 9999 }, {}, true), // warmup: never in the figures
    ...Array.from({ length: 8 }, (_, i) => record('host:codex', i, i === 7 ? 'failed' : 'ok', i === 7 ? { completion_ms: 90_000 } : { first_request_ms: 200 + i, completion_ms: 400 + i * 10 }, i === 7 ? { agent_failure: 'init_deadline' } : {})),
    ...Array.from({ length: 8 }, (_, i) => record('qemu-microvm:claude@cpu-qemu64', i, 'failed', { completion_ms: 3000 + i }, { agent_failure: 'signal', vm_cpu_model: 'qemu64' })),
  ];

  it('P50 over ok formal trials only, every planned trial in the denominator, causes counted', () => {
    const [host, vm] = summarizeArms(records);
    expect(host).toMatchObject({ arm: 'host:codex', planned: 8, ok: 7, failed: 1, causes: 'init_deadline=1' });
    expect(host!.firstRequest).toMatchObject({ n: 7, p50: 203 });
    expect(host!.exit.p50).toBe(430);
    expect(host!.exit.low).not.toBeNull();
    expect(vm).toMatchObject({ planned: 8, ok: 0, failed: 8, cpuModel: 'qemu64', causes: 'signal=8' });
    expect(vm!.exit.p50).toBeNull();
  });

  it('writes agent-summary.csv and marks an arm with no valid trial as unavailable_failed_preflight', () => {
    const input = { resolved: { run_id: 'r', spec }, records } as unknown as AnalysisInput;
    const out = agentExtension(input);
    const csv = out.files.get(AGENT_SUMMARY_FILE)!.trim().split('\n');
    expect(csv[0]).toMatch(/^arm,backend,agent,vm_cpu_model,planned,ok,invalid,failed,first_request_p50_ms/);
    expect(csv).toHaveLength(3);
    const vmRows = out.evidence.filter((row) => row.variant === 'qemu-microvm:claude@cpu-qemu64');
    expect(vmRows).toHaveLength(1);
    expect(vmRows[0]).toMatchObject({ statistic: 'unavailable_failed_preflight', n: 0, value: null });
    expect(vmRows[0]!.metric).toBe('completion_ms');
    // P50 rows of valid arms come from the generic evidence; the extension adds none (no duplicate keys).
    expect(out.evidence.filter((row) => row.variant === 'host:codex')).toEqual([]);
    expect(out.tables![0]!.rows[0]).toEqual(['host:codex', '7/8', expect.stringMatching(/^203 \[\d+–\d+\]$/), expect.stringMatching(/^430 \[/), '–', 'init_deadline=1']);
  });
});
