/**
 * Submitting a campaign's two Slurm scripts: the shard array, then the merge job depending on the
 * whole array. `afterok` on an array waits for every task; `--kill-on-invalid-dep=yes` cancels the
 * merge once a task fails or is cancelled (else it would stay PENDING forever, DependencyNeverSatisfied).
 */
import { execa } from 'execa';
import { UserError } from '../errors.ts';

export interface SubmittedCampaign {
  arrayJobId: string;
  mergeJobId: string;
}

/** `sbatch --parsable` prints "<id>" or "<id>;<cluster>". */
export function parseJobId(stdout: string, what: string): string {
  const id = stdout.trim().split(';')[0]!;
  if (!/^\d+$/.test(id)) throw new Error(`sbatch (${what}) printed no job id: ${JSON.stringify(stdout)}`);
  return id;
}

/** The sbatch options that make the merge job wait for every task of the array. */
export function mergeDependency(arrayJobId: string): string[] {
  return [`--dependency=afterok:${arrayJobId}`, '--kill-on-invalid-dep=yes'];
}

/**
 * For a merge resubmitted after a task was cancelled and requeued: `afterok:<array>` stays never
 * satisfied once any task ended badly, even after its rerun completed (Slurm 22.05, measured:
 * data/slurm/one-node-cluster.md), while `afterok` on each task sees the rerun.
 */
export function resubmittedMergeDependency(arrayJobId: string, shards: number): string[] {
  const tasks = Array.from({ length: shards }, (_, i) => `${arrayJobId}_${i}`).join(':');
  return [`--dependency=afterok:${tasks}`, '--kill-on-invalid-dep=yes'];
}

async function sbatch(args: string[], what: string): Promise<string> {
  let result;
  try {
    result = await execa('sbatch', ['--parsable', ...args], { reject: false });
  } catch (error) {
    throw new UserError(`--submit: cannot run sbatch (${error instanceof Error ? error.message : error}); install the Slurm client (apt-get install slurm-client) or submit the scripts yourself`);
  }
  if (result.exitCode !== 0) {
    const message = `${result.stderr}`.trim() || `exit ${result.exitCode}`;
    throw new UserError(`--submit: sbatch refused the ${what} (${message}); check --partition/--time against sinfo, and SLURM_CONF`);
  }
  return parseJobId(`${result.stdout}`, what);
}

export async function submitCampaign(shardScriptPath: string, mergeScriptPath: string): Promise<SubmittedCampaign> {
  const arrayJobId = await sbatch([shardScriptPath], 'shard array');
  let mergeJobId: string;
  try {
    mergeJobId = await sbatch([...mergeDependency(arrayJobId), mergeScriptPath], 'merge job');
  } catch (error) {
    // An array without its merge would run unattended to no bundle: cancel it and say so.
    await execa('scancel', [arrayJobId], { reject: false }).catch(() => undefined);
    throw error instanceof UserError ? new UserError(`${error.message} (array job ${arrayJobId} cancelled)`) : error;
  }
  return { arrayJobId, mergeJobId };
}
