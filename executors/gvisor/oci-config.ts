/**
 * The OCI bundle one gvisor trial runs: config.json over the task image's rootfs (read-only), the
 * staged workspace bound read-write at /workspace, private /tmp, and the task's extras (tool layers
 * read-only below /run/sandbench, the one service socket). The process runs as root with Podman's
 * default capabilities and the rlimits every container backend gets, so arms differ in runtime only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { SANDBOX_MOUNT_ROOT, type TaskCommand, type TrialControls } from '../../harness/contracts/executor.ts';
import { SANDBOX_PATH } from '../launch-prefix.ts';
import { serviceEnv, serviceSocketTarget } from '../sandbox-extras.ts';

/** Podman's default capability set (containers.conf default_capabilities). */
const DEFAULT_CAPABILITIES = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FOWNER',
  'CAP_FSETID',
  'CAP_KILL',
  'CAP_NET_BIND_SERVICE',
  'CAP_SETFCAP',
  'CAP_SETGID',
  'CAP_SETPCAP',
  'CAP_SETUID',
  'CAP_SYS_CHROOT',
];

/** The container backends' `--ulimit nofile=1024:1024 nproc=4096:4096` (container-common CONTAINER_ULIMITS). */
const RLIMITS = [
  { type: 'RLIMIT_NOFILE', hard: 1024, soft: 1024 },
  { type: 'RLIMIT_NPROC', hard: 4096, soft: 4096 },
];

export interface OciInput {
  rootfsDir: string;
  /** Host directory bound read-write at /workspace (the mounted overlay). */
  workspaceDir: string;
  task: TaskCommand;
  controls: TrialControls;
  /** cgroup runsc makes for the sandbox (memory limit); null = runsc makes none (the sandbox stays where the launcher put it). */
  cgroupsPath: string | null;
}

interface OciMount {
  destination: string;
  type: string;
  source: string;
  options?: string[];
}

export function ociConfig(input: OciInput): Record<string, unknown> {
  const { task } = input;
  const service = task.service ? serviceEnv(task.service, { socket: serviceSocketTarget(task.service) }) : {};
  const env = { PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...task.env, ...service };
  const mounts: OciMount[] = [
    { destination: '/proc', type: 'proc', source: 'proc' },
    { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
    { destination: '/tmp', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=1777'] },
    { destination: '/workspace', type: 'bind', source: input.workspaceDir, options: ['rbind', 'rw'] },
  ];
  // The image's root is read-only, so mount points below SANDBOX_MOUNT_ROOT are made in a tmpfs on
  // its parent (/run), as staged does.
  if (task.mounts?.length || task.service) {
    mounts.push({ destination: posix.dirname(SANDBOX_MOUNT_ROOT), type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'nodev', 'mode=755'] });
  }
  for (const mount of task.mounts ?? []) mounts.push({ destination: mount.target, type: 'bind', source: mount.source, options: ['rbind', 'ro'] });
  if (task.service) mounts.push({ destination: serviceSocketTarget(task.service), type: 'bind', source: task.service.socketPath, options: ['bind', 'rw'] });

  const memory = input.controls.memoryMiB;
  return {
    ociVersion: '1.0.2',
    process: {
      terminal: false,
      user: { uid: 0, gid: 0 },
      args: task.argv,
      env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
      cwd: '/workspace',
      capabilities: Object.fromEntries(['bounding', 'effective', 'permitted'].map((set) => [set, DEFAULT_CAPABILITIES])),
      rlimits: RLIMITS,
      noNewPrivileges: true,
    },
    root: { path: input.rootfsDir, readonly: true },
    hostname: 'sandbench-task',
    mounts,
    linux: {
      namespaces: ['pid', 'network', 'ipc', 'uts', 'mount'].map((type) => ({ type })),
      ...(input.cgroupsPath !== null ? { cgroupsPath: input.cgroupsPath } : {}),
      // memory = memory+swap: no swap, like the container backends' --memory-swap.
      ...(input.cgroupsPath !== null && memory !== null ? { resources: { memory: { limit: memory * 1024 * 1024, swap: memory * 1024 * 1024 } } } : {}),
    },
  };
}

/** Writes `<bundleDir>/config.json`; returns the bundle directory. */
export function writeBundle(bundleDir: string, input: OciInput): string {
  mkdirSync(bundleDir, { recursive: true });
  writeFileSync(join(bundleDir, 'config.json'), `${JSON.stringify(ociConfig(input), null, 2)}\n`);
  return bundleDir;
}
