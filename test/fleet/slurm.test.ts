/**
 * The Slurm fleet path on the real scheduler: scripts/start-slurm.sh brings up slurmctld + 3 slurmd
 * nodes on this machine, `sandbench fleet slurm --submit` runs test/fleet/slurm-small.yaml
 * (host + staged) as a 3-task array with a dependent merge job, and the merged bundle must verify
 * with every planned trial exactly once, each shard's host = the Slurm node it ran on. A task
 * cancelled mid-run is requeued and resumes its bundle without duplicating a trial. Slurm itself
 * (`sbatch --test-only`) judges the generated scripts. Afterwards no Slurm or munge process remains.
 *
 * Skipped (with the reason) only when Slurm is not installed or we are not root AND CI does not
 * require backends; with SANDBENCH_REQUIRE_BACKENDS set (CI) a missing Slurm fails.
 */
import { execa } from 'execa';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import type { Plan } from '../../harness/plan/plan.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { ShardedPlan } from '../../harness/fleet/shard-plan.ts';
import { resubmittedMergeDependency } from '../../harness/fleet/slurm-submit.ts';
import { sandbench } from '../support/cli.ts';

const SPEC = 'test/fleet/slurm-small.yaml';
const SHARDS = 3;
const START = join(PROJECT_ROOT, 'scripts', 'start-slurm.sh');
const DAEMONS = ['slurmd', 'slurmctld', 'slurmstepd', 'munged'];

function installed(tool: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => existsSync(join(dir, tool))) || existsSync(join('/usr/sbin', tool));
}
const missingTools = ['sbatch', 'scontrol', 'squeue', 'slurmctld', 'slurmd', 'munged', 'mungekey'].filter((tool) => !installed(tool));
const notRoot = process.getuid?.() !== 0;
const unavailable = missingTools.length > 0 ? `Slurm is not installed (missing ${missingTools.join(', ')}; apt-get install -y slurm-wlm munge, or scripts/setup.sh --with slurm)` : notRoot ? 'not root (slurmd must run as root)' : null;
const required = Boolean(process.env.SANDBENCH_REQUIRE_BACKENDS);

if (unavailable && !required) {
  process.stderr.write(`test/fleet/slurm.test.ts: skipped — ${unavailable}\n`);
}

it.runIf(unavailable !== null && required)('Slurm is available (CI requires it: SANDBENCH_REQUIRE_BACKENDS is set)', () => {
  expect.fail(`${unavailable}`);
});

const read = (path: string) => readFileSync(path, 'utf8');
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe.skipIf(unavailable !== null)(`Slurm job array on a 3-node test cluster: ${SPEC}`, () => {
  let root = '';
  let clusterDir = '';
  let env: Record<string, string> = {};
  let plannedIds: string[] = [];
  let stopped = false;

  const slurm = async (tool: string, args: string[]) => {
    const result = await execa(tool, args, { env, reject: false });
    return { code: result.exitCode ?? -1, stdout: `${result.stdout}`, stderr: `${result.stderr}` };
  };

  /** `scontrol -o show job <id>`: one record per job (per task for an array), as key → value. */
  const jobs = async (id: string): Promise<Record<string, string>[]> => {
    const shown = await slurm('scontrol', ['-o', 'show', 'job', id]);
    if (shown.code !== 0) throw new Error(`scontrol show job ${id}: ${shown.stderr}`);
    return shown.stdout.split('\n').filter(Boolean).map((line) => Object.fromEntries([...line.matchAll(/(\w+)=(\S*)/g)].map((m) => [m[1]!, m[2]!])));
  };
  const task = async (array: string, index: number) => (await jobs(`${array}_${index}`)).find((job) => job.ArrayTaskId === String(index))!;
  /** Still to finish: any record of the job (every task of an array) not in a final state. A slow controller answering nothing counts as unfinished. */
  const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'PREEMPTED']);
  const queued = async (id: string) => {
    const records = await jobs(id).catch(() => []);
    return records.length === 0 || records.some((job) => !FINAL.has(job.JobState ?? ''));
  };

  async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}; queue: ${(await slurm('squeue', ['-h'])).stdout}`);
      await sleep(1000);
    }
  }

  async function submit(results: string): Promise<{ array: string; merge: string; stdout: string }> {
    const result = await sandbench(['fleet', 'slurm', SPEC, '--shards', String(SHARDS), '--results', results, '--submit'], { env });
    expect(result.code, result.stderr).toBe(0);
    const ids = /array_job=(\d+) merge_job=(\d+)/.exec(result.stdout);
    expect(ids, result.stdout).not.toBeNull();
    return { array: ids![1]!, merge: ids![2]!, stdout: result.stdout };
  }

  function expectMergedExactlyOnce(merged: string): void {
    const ids = readJournal(join(merged, 'journal.jsonl')).records.map((record) => record.trial_id);
    expect(ids.length).toBe(new Set(ids).size);
    expect([...ids].sort()).toEqual([...plannedIds].sort());
  }

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sandbench-slurm-test-'));
    // munged needs every directory above its socket searchable by others (mkdtemp makes 0700).
    chmodSync(root, 0o755);
    clusterDir = join(root, 'cluster');
    // A port range of its own, so a stale or foreign cluster on Slurm's default ports cannot answer.
    const port = String(17000 + (process.pid % 500) * 8);
    const started = await execa(START, ['--nodes', '3', '--dir', clusterDir, '--port', port], { reject: false });
    expect(started.exitCode, `${started.stderr}`).toBe(0);
    env = { SLURM_CONF: join(clusterDir, 'slurm.conf') };
    const planned = await sandbench(['plan', SPEC, '--json', join(root, 'full-plan.json')]);
    expect(planned.code, planned.stderr).toBe(0);
    plannedIds = (JSON.parse(read(join(root, 'full-plan.json'))) as Plan).trials.map((t) => t.trial_id);
  }, 120_000);

  afterAll(async () => {
    if (clusterDir && !stopped) await execa(START, ['--stop', '--dir', clusterDir], { reject: false });
    if (root) rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it('sbatch --test-only accepts the generated array and merge scripts, and refuses what the cluster cannot run', async () => {
    const results = join(root, 'test-only');
    const written = await sandbench(['fleet', 'slurm', SPEC, '--shards', String(SHARDS), '--results', results], { env });
    expect(written.code, written.stderr).toBe(0);
    for (const script of ['shards.sbatch', 'merge.sbatch']) {
      const checked = await slurm('sbatch', ['--test-only', join(results, script)]);
      expect(checked.code, `${script}: ${checked.stderr}`).toBe(0);
      expect(checked.stderr).toMatch(/to start at/);
    }
    // controls.cpus 0-7 asks for nodes with 8 CPUs (--mincpus=8): these nodes have 1 each.
    const pinned = join(root, 'pinned.yaml');
    writeFileSync(pinned, `${read(join(PROJECT_ROOT, SPEC))}controls:\n  cpus: "0-7"\n`);
    const pinnedResults = join(root, 'pinned');
    expect((await sandbench(['fleet', 'slurm', pinned, '--shards', String(SHARDS), '--results', pinnedResults], { env })).code).toBe(0);
    const refused = await slurm('sbatch', ['--test-only', join(pinnedResults, 'shards.sbatch')]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/node configuration is not available/i);
    // Pinned CPUs on a shared node: refused before Slurm is asked.
    const shared = await sandbench(['fleet', 'slurm', pinned, '--shards', String(SHARDS), '--results', join(root, 'shared'), '--no-exclusive'], { env });
    expect(shared.code).toBe(2);
    expect(shared.stderr).toMatch(/--no-exclusive: .*controls\.cpus/);
    const partition = await sandbench(['fleet', 'slurm', SPEC, '--shards', String(SHARDS), '--results', join(root, 'partition'), '--partition', 'nosuch'], { env });
    expect(partition.code).toBe(0);
    expect((await slurm('sbatch', ['--test-only', join(root, 'partition', 'shards.sbatch')])).stderr).toMatch(/invalid partition/i);
  }, 300_000);

  it('fleet slurm --submit: every array task completes on its own node and the dependent merge job writes a bundle with every planned trial once', async () => {
    const results = join(root, 'campaign');
    const { array, merge } = await submit(results);
    await waitFor(`merge job ${merge}`, 300_000, async () => !(await queued(merge)) && !(await queued(array)));
    const tasks = (await jobs(array)).filter((job) => job.ArrayJobId === array);
    expect(tasks.map((t) => t.ArrayTaskId).sort()).toEqual(['0', '1', '2']);
    for (const t of tasks) expect([t.JobState, t.ExitCode], `task ${t.ArrayTaskId}`).toEqual(['COMPLETED', '0:0']);
    const [mergeJob] = await jobs(merge);
    const mergeLog = join(results, 'logs', `sandbench-slurm-small-merge-${merge}.out`);
    expect([mergeJob!.JobState, mergeJob!.ExitCode], existsSync(mergeLog) ? read(mergeLog) : 'no merge log: the job never started').toEqual(['COMPLETED', '0:0']);
    // A job can show COMPLETED 0:0 and have run nothing (data/slurm trap 3): check what it wrote.
    for (const t of tasks) {
      const shard = join(results, `shard-${t.ArrayTaskId}`);
      expect(read(join(results, 'logs', `sandbench-slurm-small-${array}_${t.ArrayTaskId}.out`))).toContain(`bundle: ${shard}`);
      const plan = JSON.parse(read(join(shard, 'plan.json'))) as ShardedPlan;
      expect(plan.shard.host.node_name).toBe(t.BatchHost);
      expect(plan.shard.host.slurm).toMatchObject({ node_name: t.BatchHost, array_job_id: array, array_task_id: Number(t.ArrayTaskId), cluster: 'sandbench', restart_count: 0 });
    }
    const merged = join(results, 'merged');
    expect((await sandbench(['verify', merged])).code).toBe(0);
    expectMergedExactlyOnce(merged);
    const fleet = JSON.parse(read(join(merged, 'fleet.json'))) as { hosts: { key: string; shards: number[] }[] };
    const nodes = [...new Set(tasks.map((t) => t.BatchHost!))].sort();
    expect(fleet.hosts.map((h) => h.key).sort()).toEqual(nodes.map((n) => `node:${n}`));
  }, 420_000);

  it('a shard task rerun on another node sets the old bundle aside and runs the shard there from the start', async () => {
    const results = join(root, 'campaign');
    const shard = join(results, 'shard-0');
    const oldPlan = JSON.parse(read(join(shard, 'plan.json'))) as ShardedPlan;
    const nodes = (await slurm('sinfo', ['-h', '-N', '-o', '%N'])).stdout.split('\n').filter(Boolean);
    const other = nodes.find((node) => node !== oldPlan.shard.host.node_name)!;
    // What a requeue that lands elsewhere does: the same script, task 0, on another node.
    const rerun = await slurm('sbatch', ['--parsable', '--array=0', `--nodelist=${other}`, join(results, 'shards.sbatch')]);
    expect(rerun.code, rerun.stderr).toBe(0);
    const id = rerun.stdout.trim().split(';')[0]!;
    await waitFor(`rerun ${id}`, 240_000, async () => !(await queued(id)));
    const done = (await jobs(id))[0]!;
    expect([done.JobState, done.ExitCode, done.BatchHost], read(join(results, 'logs', `sandbench-slurm-small-${id}_0.out`))).toEqual(['COMPLETED', '0:0', other]);
    const aside = readdirSync(results).filter((name) => name.startsWith('shard-0.partial-'));
    expect(aside).toHaveLength(1);
    expect(read(join(results, aside[0]!, 'plan.json'))).toBe(`${JSON.stringify(oldPlan, null, 2)}\n`);
    const newPlan = JSON.parse(read(join(shard, 'plan.json'))) as ShardedPlan;
    expect(newPlan.shard.host.node_name).toBe(other);
    expect(newPlan.trials).toEqual(oldPlan.trials);
    const ids = readJournal(join(shard, 'journal.jsonl')).records.map((r) => r.trial_id);
    expect([...ids].sort()).toEqual(newPlan.trials.map((t) => t.trial_id).sort());
    expect((await sandbench(['verify', shard])).code).toBe(0);
  }, 300_000);

  it('a task cancelled mid-run is requeued on its node and resumes its bundle: no trial twice, the resubmitted merge verifies', async () => {
    const results = join(root, 'requeue');
    const submitted = await submit(results);
    const { array, merge } = submitted;
    const shard = join(results, 'shard-1');
    const journal = join(shard, 'journal.jsonl');
    const perShard = plannedIds.length / SHARDS;
    // Mid-run: at least one trial journaled, some still to run (each trial takes about a second).
    await waitFor('task 1 to journal its first trial', 240_000, async () => existsSync(journal) && readJournal(journal).records.length >= 1);
    const before = read(journal);
    const done = readJournal(journal).records.length;
    expect(done).toBeLessThan(perShard);
    const first = await task(array, 1);
    expect((await slurm('scancel', [`${array}_1`])).code).toBe(0);
    await waitFor('task 1 to end cancelled', 120_000, async () => (await task(array, 1)).JobState === 'CANCELLED');
    const planBefore = read(join(shard, 'plan.json'));
    expect(readJournal(journal).records.length).toBeLessThan(perShard);

    expect((await slurm('scontrol', ['requeue', `${array}_1`])).code).toBe(0);
    await waitFor('task 1 to be pending again', 60_000, async () => (await task(array, 1)).JobState === 'PENDING');
    // Pinned to the node of its first attempt (a shard's trials come from one host), started now
    // instead of after cred_expire plus a scheduler pass (data/slurm trap 5).
    expect((await slurm('scontrol', ['update', `JobId=${first.JobId}`, `NodeList=${first.BatchHost}`])).code).toBe(0);
    expect((await slurm('scontrol', ['update', `JobId=${first.JobId}`, 'StartTime=now'])).code).toBe(0);
    await waitFor('the array to finish', 300_000, async () => !(await queued(array)));
    const rerun = await task(array, 1);
    expect([rerun.JobState, rerun.ExitCode, rerun.Restarts, rerun.BatchHost]).toEqual(['COMPLETED', '0:0', '1', first.BatchHost]);
    const log = read(join(results, 'logs', `sandbench-slurm-small-${array}_1.out`));
    expect(log).toMatch(/shard 1\/3 on node \S+ .*restart 1\)/);

    // Resumed, not restarted: the same plan, the journal before the kill kept as its prefix, no trial twice.
    expect(read(join(shard, 'plan.json'))).toBe(planBefore);
    expect(read(journal).startsWith(before)).toBe(true);
    const ids = readJournal(journal).records.map((r) => r.trial_id);
    expect(ids.length).toBe(new Set(ids).size);
    expect([...ids].sort()).toEqual((JSON.parse(planBefore) as ShardedPlan).trials.map((t) => t.trial_id).sort());
    expect(readdirSync(results).filter((name) => name.includes('.partial-'))).toEqual([]);

    // The cancelled task invalidated the merge's afterok for good: cancelled, not left pending.
    await waitFor(`merge job ${merge} to leave the queue`, 60_000, async () => !(await queued(merge)));
    expect((await jobs(merge))[0]!.JobState).toBe('CANCELLED');
    // What --submit printed for this case: afterok on each task (afterok on the array stays unsatisfiable).
    expect(submitted.stdout).toContain(`sbatch ${resubmittedMergeDependency(array, SHARDS).join(' ')} ${join(results, 'merge.sbatch')}`);
    const resubmitted = await slurm('sbatch', ['--parsable', ...resubmittedMergeDependency(array, SHARDS), join(results, 'merge.sbatch')]);
    expect(resubmitted.code, resubmitted.stderr).toBe(0);
    const mergeAgain = resubmitted.stdout.trim().split(';')[0]!;
    await waitFor(`merge job ${mergeAgain}`, 240_000, async () => !(await queued(mergeAgain)));
    const mergeLog = join(results, 'logs', `sandbench-slurm-small-merge-${mergeAgain}.out`);
    const again = (await jobs(mergeAgain))[0]!;
    expect([again.JobState, again.Reason], existsSync(mergeLog) ? read(mergeLog) : 'no merge log: the job never started').toEqual(['COMPLETED', 'None']);
    const merged = join(results, 'merged');
    expect((await sandbench(['verify', merged])).code).toBe(0);
    expectMergedExactlyOnce(merged);
  }, 600_000);

  it('start-slurm.sh --stop leaves no slurmd, slurmctld, slurmstepd or munged behind', async () => {
    const stop = await execa(START, ['--stop', '--dir', clusterDir], { reject: false });
    stopped = true;
    expect(stop.exitCode, `${stop.stderr}`).toBe(0);
    for (const daemon of DAEMONS) {
      const found = await execa('pgrep', ['-a', '-x', daemon], { reject: false });
      expect(`${found.stdout}`.trim(), daemon).toBe('');
    }
  }, 120_000);
});
