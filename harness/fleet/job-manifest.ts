/**
 * A Kubernetes batch/v1 Indexed Job that runs one campaign as N shards, one pod per shard on
 * distinct nodes (required pod anti-affinity on kubernetes.io/hostname), plus the ConfigMap holding
 * the spec. Each pod runs `sandbench run <spec> --shard $JOB_COMPLETION_INDEX/N` into
 * <results>/shard-<index> on a shared volume; a retried pod resumes its shard's bundle instead of
 * starting over. Orchestration is Kubernetes' own: no scheduler of ours. Pure: options in, objects out.
 */
import { UserError } from '../errors.ts';
import { NODE_NAME_ENV } from './host-identity.ts';
import type { PodNeeds } from './backend-needs.ts';

export const SPEC_MOUNT = '/etc/sandbench';
export const RESULTS_MOUNT = '/results';
export const STATE_MOUNT = '/var/lib/sandbench';
/** Where the Containerfile bakes a prebuilt task image cache (the state dir itself is an emptyDir). */
export const PREBUILT_IMAGES = '/opt/sandbench-cache/images';
/** KubeVirt's device plugin resource for /dev/kvm, for clusters that grant KVM without privilege. */
export const KVM_DEVICE_RESOURCE = 'devices.kubevirt.io/kvm';

export interface JobManifestOptions {
  name: string;
  namespace?: string;
  shards: number;
  parallelism: number;
  image: string;
  specText: string;
  specFileName: string;
  nodeSelector: Record<string, string>;
  privileged: boolean;
  resultsPvc: string;
  needs: PodNeeds;
  /** Pod retries per shard (each retry resumes the shard's bundle). */
  retriesPerShard: number;
}

/** DNS-1123 label from a spec name (Job names also prefix pod names, so stay well under 63). */
export function jobName(specName: string): string {
  const slug = specName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return `sandbench-${slug || 'campaign'}`;
}

/** The pod's script: resume the shard when a previous pod left a bundle, else start it. */
export function shardScript(options: Pick<JobManifestOptions, 'name' | 'shards' | 'specFileName'>): string {
  return [
    'set -eu',
    `out="${RESULTS_MOUNT}/${options.name}/shard-\${JOB_COMPLETION_INDEX}"`,
    'mkdir -p "$(dirname "$out")"',
    // A task image baked into the container image (Containerfile, PREBUILD_TASK_IMAGE=1): every node then runs the same bytes.
    `if [ -d ${PREBUILT_IMAGES} ] && [ ! -e "$SANDBENCH_HOME/images" ]; then ln -s ${PREBUILT_IMAGES} "$SANDBENCH_HOME/images"; fi`,
    'if [ -f "$out/plan.json" ]; then exec sandbench run --resume "$out"; fi',
    `exec sandbench run ${SPEC_MOUNT}/${options.specFileName} --shard "\${JOB_COMPLETION_INDEX}/${options.shards}" --require-all --out "$out"`,
  ].join('\n');
}

function securityContext(options: JobManifestOptions): Record<string, unknown> | undefined {
  const { needs, privileged } = options;
  if (needs.privileged.length > 0 && !privileged) {
    throw new UserError(`fleet manifest: ${needs.privileged.join('; ')} — only a privileged pod can do that: add --privileged (and run on nodes you trust with it), or drop those arms from the spec`);
  }
  if (privileged) return { privileged: true };
  if (needs.namespaces.length === 0) return undefined;
  // Without privilege: the least that lets bubblewrap create mount namespaces and mount overlayfs.
  return {
    capabilities: { add: ['SYS_ADMIN'] },
    seccompProfile: { type: 'Unconfined' },
    appArmorProfile: { type: 'Unconfined' },
  };
}

function volumes(options: JobManifestOptions) {
  const vols: Record<string, unknown>[] = [
    { name: 'spec', configMap: { name: `${options.name}-spec` } },
    { name: 'results', persistentVolumeClaim: { claimName: options.resultsPvc } },
    // The task image cache (built once per pod, outside timing); node-local scratch.
    { name: 'state', emptyDir: { sizeLimit: '8Gi' } },
  ];
  const mounts: Record<string, unknown>[] = [
    { name: 'spec', mountPath: SPEC_MOUNT, readOnly: true },
    { name: 'results', mountPath: RESULTS_MOUNT },
    { name: 'state', mountPath: STATE_MOUNT },
  ];
  if (options.needs.containerStorage) {
    // Nested podman/docker cannot put overlay storage on the container's own overlay root.
    vols.push({ name: 'containers', emptyDir: {} }, { name: 'docker', emptyDir: {} });
    mounts.push({ name: 'containers', mountPath: '/var/lib/containers' }, { name: 'docker', mountPath: '/var/lib/docker' });
  }
  if (options.needs.kvm.length > 0 && options.privileged) {
    vols.push({ name: 'kvm', hostPath: { path: '/dev/kvm', type: 'CharDevice' } });
    mounts.push({ name: 'kvm', mountPath: '/dev/kvm' });
  }
  return { vols, mounts };
}

export function buildJobManifest(options: JobManifestOptions): { configMap: Record<string, unknown>; job: Record<string, unknown> } {
  if (!Number.isInteger(options.shards) || options.shards < 1) throw new Error(`buildJobManifest: shards must be ≥ 1, got ${options.shards}`);
  const labels = { 'app.kubernetes.io/name': 'sandbench', 'sandbench.io/job': options.name };
  const metadata = (name: string) => ({ name, ...(options.namespace ? { namespace: options.namespace } : {}), labels });
  const { vols, mounts } = volumes(options);
  const context = securityContext(options);
  // Unprivileged VMs: KVM from the KubeVirt device plugin, if the cluster has it.
  const resources = options.needs.kvm.length > 0 && !options.privileged ? { limits: { [KVM_DEVICE_RESOURCE]: '1' } } : undefined;
  const container = {
    name: 'sandbench',
    image: options.image,
    command: ['/bin/sh', '-c'],
    args: [shardScript(options)],
    env: [
      { name: NODE_NAME_ENV, valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
      { name: 'SANDBENCH_HOME', value: STATE_MOUNT },
    ],
    volumeMounts: mounts,
    ...(context ? { securityContext: context } : {}),
    ...(resources ? { resources } : {}),
  };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: metadata(options.name),
    spec: {
      completionMode: 'Indexed',
      completions: options.shards,
      parallelism: options.parallelism,
      // Per-shard retries (Kubernetes ≥ 1.29); each retry resumes the shard's bundle.
      backoffLimitPerIndex: options.retriesPerShard,
      // A replacement pod starts only once the old one is gone: never two pods on one shard's bundle.
      podReplacementPolicy: 'Failed',
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          // Time for SIGTERM to kill the trial in flight and release every resource (exit 143, resumable).
          terminationGracePeriodSeconds: 120,
          ...(Object.keys(options.nodeSelector).length > 0 ? { nodeSelector: options.nodeSelector } : {}),
          affinity: {
            podAntiAffinity: {
              // Host is the blocking factor: two shards on one node would share (and disturb) it.
              requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { 'sandbench.io/job': options.name } }, topologyKey: 'kubernetes.io/hostname' }],
            },
          },
          containers: [container],
          volumes: vols,
        },
      },
    },
  };
  const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(`${options.name}-spec`), data: { [options.specFileName]: options.specText } };
  return { configMap, job };
}
