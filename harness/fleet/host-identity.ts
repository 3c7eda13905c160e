/**
 * Which machine a shard ran on. Host is a blocking factor of a fleet campaign (timings from two
 * machines are never pooled), so every shard records it and `merge` stamps it on every trial.
 * On Kubernetes the pod's hostname and /etc/machine-id belong to the container, not the node, so
 * the Job manifest passes the node name through the downward API (SANDBENCH_NODE_NAME). Under Slurm
 * the batch step runs on the node itself and slurmd names the node (SLURMD_NODENAME); several
 * slurmd may share one machine (a test cluster), so the node name, not the machine id, is the host.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export const NODE_NAME_ENV = 'SANDBENCH_NODE_NAME';

export interface HostIdentity {
  hostname: string;
  /** /etc/machine-id (systemd's stable per-install id); null when the file is absent or empty. */
  machine_id: string | null;
  /** The Kubernetes node (downward API spec.nodeName) or the Slurm node (SLURMD_NODENAME); null outside a cluster. */
  node_name: string | null;
  /** Present only when the shard started inside a Slurm job: which job and array task ran it first. */
  slurm?: SlurmIdentity;
}

/**
 * The Slurm job that started a shard (recorded once, when plan.json is written; a requeued task
 * resumes that bundle, so these are the first attempt's ids — its log is <name>-<array>_<task>.out).
 */
export interface SlurmIdentity {
  cluster: string | null;
  node_name: string;
  job_id: string;
  array_job_id: string | null;
  array_task_id: number | null;
  restart_count: number;
}

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** The Slurm job this process runs in, from the variables slurmd sets in every batch step; null outside one. */
export function readSlurmIdentity(env: NodeJS.ProcessEnv = process.env): SlurmIdentity | null {
  const jobId = nonEmpty(env.SLURM_JOB_ID);
  const node = nonEmpty(env.SLURMD_NODENAME);
  if (!jobId || !node) return null;
  const task = nonEmpty(env.SLURM_ARRAY_TASK_ID);
  const restarts = Number(nonEmpty(env.SLURM_RESTART_COUNT) ?? '0');
  return {
    cluster: nonEmpty(env.SLURM_CLUSTER_NAME),
    node_name: node,
    job_id: jobId,
    array_job_id: nonEmpty(env.SLURM_ARRAY_JOB_ID),
    array_task_id: task !== null && /^\d+$/.test(task) ? Number(task) : null,
    restart_count: Number.isInteger(restarts) && restarts >= 0 ? restarts : 0,
  };
}

function machineId(): string | null {
  try {
    const id = readFileSync('/etc/machine-id', 'utf8').trim();
    return id.length > 0 ? id : null;
  } catch {
    return null;
  }
}

export function readHostIdentity(env: NodeJS.ProcessEnv = process.env): HostIdentity {
  const slurm = readSlurmIdentity(env);
  // An explicit SANDBENCH_NODE_NAME (Kubernetes' downward API) wins over Slurm's.
  const node = nonEmpty(env[NODE_NAME_ENV]) ?? slurm?.node_name ?? null;
  return { hostname: hostname(), machine_id: machineId(), node_name: node, ...(slurm ? { slurm } : {}) };
}

/**
 * The stratum key of a host: the node name when known (pods on one node share it), else the
 * machine id (a container hostname may repeat across machines), else the hostname.
 */
export function hostKey(identity: HostIdentity): string {
  if (identity.node_name) return `node:${identity.node_name}`;
  if (identity.machine_id) return `machine:${identity.machine_id}`;
  return `hostname:${identity.hostname}`;
}
