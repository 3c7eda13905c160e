/**
 * The fork prefix on the container backends end to end (CRIU checkpoint/restore through the podman
 * and docker checkpoint mechanisms, which honour MechanismTrial.attach): one step of K = 2 attempts
 * of B = 1 task, fresh and fork, the built-in task and agent against the real model service. Each
 * forked child must finish its attempt with the candidate and reward of its matched fresh attempt,
 * run in its own attempt cgroup, and leave nothing: no container, no checkpoint, no cgroup, no
 * process. Serial: ~45 s (two backends' cells in one run).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { forkUnavailableReason } from '../../experiments/rollout-step/prefix-fork.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { leftoversOf } from '../support/leftovers.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dir = tempDir('sandbench-rsfc-');
const BACKENDS = ['podman', 'docker'];

const SPEC = `name: rs-fork-containers
experiment: rollout-step
arms: [{ backend: podman }, { backend: docker }]
warmups: 0
trials: 1
seed: 31
timeout: 120s
resamples: 1000
rollout_step:
  group_size: [2]
  tasks_per_step: 1
  steps: 1
  prefix: [fresh, fork]
  concurrency: 2
  model: { slots: 2, base_ms: 10 }
  trainer: { train_ms: 10ms, staleness: 0 }
  scoring_backend: staged
`;

const matchKey = (r: TrialRecord) => `${r.arm.backend}/${r.facts.step}/${r.facts.group_slot}/${r.facts.group_member}`;
const candidateDigest = (r: TrialRecord) => (r.facts.candidate as { digest: string } | null)?.digest;

async function nothingLeft(runId: string): Promise<void> {
  expect(await leftoversOf(runId)).toEqual([]);
  expect(existsSync(runScratchDir(stateDir(), runId))).toBe(false);
  const cgroupRoots = readdirSync('/sys/fs/cgroup').map((name) => join('/sys/fs/cgroup', name)).filter((root) => existsSync(join(root, 'cgroup.procs')));
  for (const root of cgroupRoots) expect(readdirSync(root).filter((name) => name.includes(runId)), root).toEqual([]);
}

describe('fork prefix on podman and docker', () => {
  it('their descriptors\' checkpoint mechanisms honour attach: fork is applicable (and on the VMs)', () => {
    // the VM fork path is verified by a run (docs/rollout-step.md), not here: a TCG guest costs ~2 min
    for (const backend of [...BACKENDS, 'qemu-microvm', 'qemu-q35']) expect(forkUnavailableReason(backend, null), backend).toBeNull();
    expect(forkUnavailableReason('host', null)).toMatch(/does not honour MechanismTrial.attach/);
  });

  it('restores K children from one CRIU checkpoint that finish their attempts with fresh\'s candidates and rewards, and leaves nothing', async () => {
    const specPath = join(dir, 'spec.yaml');
    writeFileSync(specPath, SPEC);
    const out = join(dir, 'bundle');
    const result = await runSpec({ specPath, overrides: {}, out, requireAll: false, log: () => undefined, wiring: await runWiring() });
    const runId = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8')).run_id as string;
    const records = result.records.filter((r) => !r.warmup);
    expect(records).toHaveLength(BACKENDS.length * 2 * 2); // arms × prefixes × (B × K)
    for (const r of records) expect(r.outcome, `${r.facts.prefix}: ${JSON.stringify(r.notes)} ${String(r.facts.prefix_unavailable ?? '')}`).toBe('ok');

    const fresh = new Map(records.filter((r) => r.facts.prefix === 'fresh').map((r) => [matchKey(r), r]));
    const forked = records.filter((r) => r.facts.prefix === 'fork');
    expect(forked).toHaveLength(BACKENDS.length * 2);
    for (const r of forked) {
      const phases = r.facts.fork as { checkpoint_ms: number; restore_ms: number; attempt_ms: number; child: number; memory_bytes: number };
      expect(phases.restore_ms).toBeGreaterThan(0);
      expect(phases.attempt_ms).toBeGreaterThan(0);
      expect(phases.memory_bytes).toBeGreaterThan(0); // CRIU images: process state was checkpointed
      const twin = fresh.get(matchKey(r))!;
      expect(r.facts.reward).toBe(twin.facts.reward);
      expect(candidateDigest(r)).toBeDefined();
      expect(candidateDigest(r)).toBe(candidateDigest(twin));
      // the child ran in its own attempt cgroup (config.dump rewritten per child): its memory figure
      // holds at least the restored attempt program (~7 MB of CRIU pages), not an empty cgroup's
      expect(String(r.facts.memory_method)).toMatch(/^cgroup-peak/);
      expect(r.metrics.memory_peak_bytes).toBeGreaterThan(4 * 2 ** 20);
    }
    for (const backend of BACKENDS) {
      const group = forked.filter((r) => r.arm.backend === backend);
      expect(new Set(group.map((r) => (r.facts.fork as { checkpoint_ms: number }).checkpoint_ms)).size, backend).toBe(1);
      expect(new Set(group.map((r) => (r.facts.fork as { child: number }).child)), backend).toEqual(new Set([0, 1]));
    }
    await nothingLeft(runId);
  }, 480_000);
});
