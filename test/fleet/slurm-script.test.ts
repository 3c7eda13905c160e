/**
 * The Slurm script generator's own rules (pure, no cluster): bad options refused naming the option
 * and the fix, quoting that survives a real shell, scripts a real shell parses, and the host
 * identity a Slurm task records. What Slurm makes of the scripts is test/fleet/slurm.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../harness/errors.ts';
import { hostKey, readHostIdentity, readSlurmIdentity } from '../../harness/fleet/host-identity.ts';
import { shellQuote, slurmJobName, slurmScripts, type SlurmScriptOptions } from '../../harness/fleet/slurm-script.ts';
import { resubmittedMergeDependency } from '../../harness/fleet/slurm-submit.ts';

const base: SlurmScriptOptions = {
  name: 'sandbench-demo',
  shards: 3,
  specFile: '/shared/results/spec.yaml',
  resultsDir: '/shared/results',
  sandbench: ['/usr/bin/node', '/opt/sandbench/bin/sandbench.mjs'],
  exclusive: true,
};

function refusal(options: Partial<SlurmScriptOptions>): string {
  try {
    slurmScripts({ ...base, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error('not refused');
}

describe('slurmScripts', () => {
  it('refuses pinned CPUs on shared nodes, malformed --time and --partition, and unusable result paths', () => {
    expect(refusal({ exclusive: false, pinnedCpus: [0, 1] })).toMatch(/^--no-exclusive: .*CPUs 0,1.*keep --exclusive/);
    expect(refusal({ time: '2h' })).toMatch(/^--time 2h: expected a Slurm time limit/);
    expect(refusal({ partition: 'a b' })).toMatch(/^--partition a b:/);
    expect(refusal({ resultsDir: '/shared/my results', specFile: '/shared/my results/spec.yaml' })).toMatch(/^--results .*spaces or '%'/);
    for (const time of ['90', '1:30:00', '2-00:00:00', '2-12', 'UNLIMITED']) expect(() => slurmScripts({ ...base, time })).not.toThrow();
  });

  it('writes scripts a POSIX shell parses, with or without options', () => {
    const variants: Partial<SlurmScriptOptions>[] = [{}, { partition: 'bench', time: '1:00:00', pinnedCpus: [0, 1], stateDir: "/scratch/it's" }, { exclusive: false, shards: 1 }];
    for (const variant of variants) {
      const scripts = slurmScripts({ ...base, ...variant });
      for (const text of [scripts.shards, scripts.merge]) execFileSync('sh', ['-n'], { input: text });
    }
  });

  it('quotes words so a shell hands them back unchanged', () => {
    for (const word of ['plain', "it's", 'a b', '$HOME', '`x`', '"q"', '']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(word)}`], { encoding: 'utf8' })).toBe(word);
    }
  });

  it('names jobs and resubmitted merge dependencies in forms Slurm takes', () => {
    expect(slurmJobName('shell ready/v2')).toBe('sandbench-shell-ready-v2');
    expect(resubmittedMergeDependency('812', 3)).toEqual(['--dependency=afterok:812_0:812_1:812_2', '--kill-on-invalid-dep=yes']);
  });
});

describe('host identity under Slurm', () => {
  const slurmEnv = { SLURM_JOB_ID: '815', SLURMD_NODENAME: 'node07', SLURM_ARRAY_JOB_ID: '812', SLURM_ARRAY_TASK_ID: '2', SLURM_RESTART_COUNT: '1', SLURM_CLUSTER_NAME: 'hpc' };

  it('records the node and the job, and keys the host by the Slurm node', () => {
    expect(readSlurmIdentity(slurmEnv)).toEqual({ cluster: 'hpc', node_name: 'node07', job_id: '815', array_job_id: '812', array_task_id: 2, restart_count: 1 });
    const identity = readHostIdentity(slurmEnv);
    expect(identity.node_name).toBe('node07');
    expect(identity.slurm?.array_task_id).toBe(2);
    expect(hostKey(identity)).toBe('node:node07');
  });

  it('outside Slurm records nothing of it; an explicit node name wins', () => {
    expect(readSlurmIdentity({})).toBeNull();
    expect('slurm' in readHostIdentity({})).toBe(false);
    expect(readHostIdentity({ ...slurmEnv, SANDBENCH_NODE_NAME: 'k8s-node-1' }).node_name).toBe('k8s-node-1');
    expect(readSlurmIdentity({ SLURM_JOB_ID: '815' })).toBeNull();
  });
});
