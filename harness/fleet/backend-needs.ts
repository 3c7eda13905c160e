/**
 * What a Kubernetes pod must grant for each backend a spec uses (docs/fleet.md explains each line).
 * Pure data: the manifest writer turns it into a securityContext, volumes and resources.
 */
import type { BackendTraitCatalog } from '../backends.ts';

export interface PodNeeds {
  /** Only a privileged container can do it (nested container engines, cgroup writes). */
  privileged: string[];
  /** Mount/user namespaces inside the pod: privileged, or SYS_ADMIN with seccomp/AppArmor unconfined. */
  namespaces: string[];
  /** Hardware virtualization: /dev/kvm from the node (else QEMU falls back to TCG and records it). */
  kvm: string[];
  /** Writable image stores the nested engines need (emptyDir, not the container's overlay). */
  containerStorage: boolean;
}

/** `catalog`: the backends' traits, whose `fleetNeeds` say what each needs of a node. */
export function podNeeds(backends: readonly string[], controls: { cpus?: string; memory?: number }, catalog: BackendTraitCatalog): PodNeeds {
  const unique = [...new Set(backends)].sort();
  const needsOf = (backend: string) => catalog.traits(backend)?.fleetNeeds ?? {};
  const pick = (key: 'privileged' | 'namespaces' | 'kvm') => unique.map((b) => needsOf(b)[key]).filter((v): v is string => Boolean(v));
  const privileged = pick('privileged');
  // Budgets are cgroups the harness creates on the node's cgroupfs, which only a privileged pod may write.
  if (controls.cpus !== undefined || controls.memory !== undefined) privileged.push('controls: cgroup CPU/memory budgets written to the node\'s cgroupfs');
  return { privileged, namespaces: pick('namespaces'), kvm: pick('kvm'), containerStorage: unique.some((b) => needsOf(b).containerStorage === true) };
}
