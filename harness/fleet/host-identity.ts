/**
 * Which machine a shard ran on. Host is a blocking factor of a fleet campaign (timings from two
 * machines are never pooled), so every shard records it and `merge` stamps it on every trial.
 * On Kubernetes the pod's hostname and /etc/machine-id belong to the container, not the node, so
 * the Job manifest passes the node name through the downward API (SANDBENCH_NODE_NAME).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export const NODE_NAME_ENV = 'SANDBENCH_NODE_NAME';

export interface HostIdentity {
  hostname: string;
  /** /etc/machine-id (systemd's stable per-install id); null when the file is absent or empty. */
  machine_id: string | null;
  /** The Kubernetes node (downward API spec.nodeName); null outside a cluster. */
  node_name: string | null;
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
  const node = env[NODE_NAME_ENV]?.trim();
  return { hostname: hostname(), machine_id: machineId(), node_name: node ? node : null };
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
