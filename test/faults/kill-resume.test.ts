/**
 * kill -9 the harness at seeded random points — right after a trial was journaled (a boundary) or
 * at a random moment inside a trial — on a run interleaving host, staged and podman. Then: `clean`
 * lists what the kill left behind and removes it, `--resume` finishes the run, the journal holds
 * every planned trial exactly once, `verify` passes and `clean --dry-run` finds nothing.
 * The task sleeps far past its 3 s timeout: every trial ends recorded (failed: timeout) and a kill
 * inside a trial leaves a live trial tree (process group, container) behind, as a real task would.
 * FAULT_SEEDS=1,2,3,... widens the sweep outside CI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import { createPrng, seedFromString } from '../../harness/plan/prng.ts';
import { SANDBENCH_BIN, sandbench } from '../support/cli.ts';
import { leftoversOf } from '../support/leftovers.ts';
import { inflightTrial, journalCount, leftoverKinds, leftoverLines, plannedIds, runIdOf, waitFor } from './fault-support.ts';
import { tempDir } from '../support/temp-dirs.ts';

const SEEDS = (process.env.FAULT_SEEDS ?? '4,5').split(',').map(Number);
const TRIALS_PER_ARM = 1;
const ARMS = ['host', 'staged', 'podman'];

function writeSpec(dir: string): string {
  const path = join(dir, 'spec.yaml');
  writeFileSync(path, `name: fault-kill
experiment: command
arms: [${ARMS.map((backend) => `{ backend: ${backend} }`).join(', ')}]
warmups: 0
trials: ${TRIALS_PER_ARM}
seed: 4
timeout: 3s
task: { argv: ["/bin/sh", "-c", "echo READY; sleep 600"], ready_marker: READY }
`);
  return path;
}

describe('kill -9 at random points, clean, resume', () => {
  for (const seed of SEEDS) {
    it(`seed ${seed}: nothing lost, nothing duplicated, nothing left`, async () => {
      // Hashed: small consecutive seeds give correlated first draws from xoroshiro128+.
      const prng = createPrng(seedFromString(`fault-kill:${seed}`));
      const total = ARMS.length * TRIALS_PER_ARM;
      const midTrial = prng.int(0, 1) === 1;
      // Trial index at which to strike: after k journaled trials (boundary), or inside trial k.
      const k = prng.int(midTrial ? 0 : 1, total - 1);
      const delayMs = prng.int(50, 2500);
      const dir = tempDir('sandbench-fault-');
      const bundle = join(dir, 'bundle');
      const child = execa('node', [SANDBENCH_BIN, 'run', writeSpec(dir), '--out', bundle], { reject: false });
      if (midTrial) {
        await waitFor(() => journalCount(bundle) === k && inflightTrial(bundle) !== null, 120_000, `trial ${k} in flight`);
        await sleep(delayMs);
      } else {
        await waitFor(() => journalCount(bundle) >= k, 120_000, `${k} journaled trials`);
      }
      child.kill('SIGKILL');
      await child;
      const runId = runIdOf(bundle);
      const point = midTrial ? `mid-trial ${k} (+${delayMs} ms, ${inflightTrial(bundle) ?? 'no inflight'})` : `after ${journalCount(bundle)} journaled trials`;

      const before = await leftoverLines(runId);
      // For the record (closing note): what this kill point left behind before clean.
      console.log(`fault seed ${seed}: kill -9 ${point}: ${before.length} leftovers [${leftoverKinds(before).join(', ')}]\n  ${before.join('\n  ')}`);
      expect(before.some((line) => line.startsWith('tempdir '))).toBe(true);
      const cleaned = await sandbench(['clean', '--run', runId]);
      expect(cleaned.code, cleaned.stderr).toBe(0);
      expect(cleaned.stdout.split('\n').filter(Boolean)).toHaveLength(before.length);

      const resumed = await sandbench(['run', '--resume', bundle]);
      // Every trial times out by design, so every arm ends with zero valid trials: exit 4, naming each arm.
      expect(resumed.code, resumed.stderr).toBe(4);
      for (const arm of ARMS) expect(resumed.stderr).toContain(`arm ${arm}: 0 of ${TRIALS_PER_ARM} formal trials valid (mostly timeout)`);
      const ids = readJournal(join(bundle, 'journal.jsonl')).records.map((record) => record.trial_id);
      expect([...ids].sort()).toEqual([...plannedIds(bundle)].sort());
      expect(new Set(ids).size).toBe(ids.length);
      expect((await sandbench(['verify', bundle])).code).toBe(0);
      expect(await leftoverLines(runId)).toEqual([]);
      expect(await leftoversOf(runId)).toEqual([]);
    }, 420_000);
  }
});
