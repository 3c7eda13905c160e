/**
 * Guest memory and the TCG translation-cache size are recorded controls of every VM density batch
 * (they set how much of the shared budget each VMM takes): in the spec, on the qemu command line,
 * in the batch record and in the evidence condition. Pure: no VM boots here.
 */
import { describe, expect, it } from 'vitest';
import { densityRecord } from '../../experiments/density/density-record.ts';
import { vmControlsOf, type DensityBatchResult } from '../../experiments/density/density-batch.ts';
import { densityAnalysis } from '../../experiments/density/density-analysis.ts';
import { qemuArgv, MICROVM } from '../../executors/vm/qemu-argv.ts';
import { plannedRecord } from '../../harness/journal/record-base.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { densitySection } from '../../experiments/density/density-plan.ts';
import type { Executor } from '../../harness/contracts/executor.ts';
import { BUILTIN_CATALOG } from '../../executors/registry.ts';
import type { ResolvedSpec } from '../../harness/spec/resolve-spec.ts';

const result: DensityBatchResult = {
  token: 'sbdx', workers: [], setupError: null, budget: null, membership: null, escaped: false, barrierMemoryBytes: 900 * 1048576,
  peak: null, oomKills: 0, releaseSkewMs: 1, release: null, barrierMs: 10, wallMs: 20, prepareMs: 5, loadAverage1m: 3,
} as DensityBatchResult;
/** A stand-in executor carrying the built-in backend's real traits (all vmControlsOf reads). */
const executor = (backend: string) => ({ backend, traits: BUILTIN_CATALOG.get(backend)!.traits }) as unknown as Executor;

describe('density VM controls', () => {
  it('the spec defaults tb-size to 32 MiB and refuses a non-positive one', () => {
    const base = { name: 'd', experiment: 'density', arms: [{ backend: 'qemu-microvm' }], warmups: 0, trials: 1, seed: 1, timeout: '60s' };
    expect(densitySection(parseSpec({ ...base, density: {} })).vm_tcg_tb_size).toBe(32);
    expect(() => parseSpec({ ...base, density: { vm_tcg_tb_size: 0 } }, 'd.yaml')).toThrow(/d\.yaml: density\.vm_tcg_tb_size:/);
  });

  it('reaches the qemu command line under TCG only', () => {
    const spec = { name: 'n', profile: MICROVM, accelerator: 'tcg' as const, memoryMiB: 256, vcpus: 1, kernelPath: '/k', initrdPath: '/i', disks: null, tscKhz: null };
    expect(qemuArgv({ ...spec, tcgTbSizeMiB: 64 }).join(' ')).toContain('-accel tcg,tb-size=64');
    expect(qemuArgv(spec).join(' ')).toContain('-accel tcg,tb-size=32');
    expect(qemuArgv({ ...spec, accelerator: 'kvm', tcgTbSizeMiB: 64 }).join(' ')).not.toContain('tb-size');
  });

  it('is recorded with every VM batch (metrics, facts, evidence condition) and absent for other backends', () => {
    expect(vmControlsOf({ executor: executor('staged'), vmMemoryMiB: 256, vmTcgTbSizeMiB: 32 })).toBeNull();
    const vmControls = vmControlsOf({ executor: executor('qemu-q35'), vmMemoryMiB: 384, vmTcgTbSizeMiB: 16 });
    expect(vmControls).toEqual({ guest_memory_mib: 384, tcg_tb_size_mib: 16 });
    const planned = { trial_id: 'b0000-qemu-q35-useful-n8', block: 0, position: 0, warmup: false, arm: { backend: 'qemu-q35', variant: null }, seed: 1, params: { workload: 'useful', concurrency: 8 } };
    const record = densityRecord(plannedRecord('r1', 'density', planned), { workload: 'useful', concurrency: 8, vmControls }, result);
    expect(record.metrics).toMatchObject({ vm_guest_memory_mib: 384, vm_tcg_tb_size_mib: 16 });
    expect(record.facts.vm_controls).toEqual(vmControls);
    const spec = parseSpec({ name: 'd', experiment: 'density', arms: [{ backend: 'qemu-q35' }], warmups: 0, trials: 1, seed: 1, timeout: '60s', density: { concurrency: [8], batches: 1 } });
    const resolved: ResolvedSpec = { run_id: 'r1', spec_path: 'd.yaml', spec_sha256: 'sha256:0', overrides: {}, skipped_arms: [], plan_arms: ['qemu-q35'], spec };
    const evidence = densityAnalysis({ resolved, records: [record] }).evidence;
    expect(evidence[0]!.condition).toContain('VM guest 384 MiB, TCG tb-size 16 MiB (TCG only)');
    const plain = densityRecord(plannedRecord('r1', 'density', { ...planned, arm: { backend: 'staged', variant: null } }), { workload: 'useful', concurrency: 8 }, result);
    expect(plain.metrics.vm_tcg_tb_size_mib).toBeUndefined();
    expect(plain.facts.vm_controls).toBeNull();
  });
});
