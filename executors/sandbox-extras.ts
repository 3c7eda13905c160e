/**
 * The task's optional extras every backend honours the same way: read-only tool mounts below
 * SANDBOX_MOUNT_ROOT and one reachable host service (a Unix socket). Validation lives here once,
 * so a bad mount is the same clear error on every backend.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute, posix } from 'node:path';
import { SANDBOX_MOUNT_ROOT, type SandboxMount, type ServiceEndpoint, type TaskCommand } from '../harness/contracts/executor.ts';

/** Inside-sandbox path of the service socket where a backend bind-mounts it. */
export function serviceSocketTarget(service: ServiceEndpoint): string {
  return `${SANDBOX_MOUNT_ROOT}/${service.name}.sock`;
}

/** Throws naming the offending mount or service when the task's extras cannot be honoured. */
export function validateExtras(task: TaskCommand): void {
  const targets = new Set<string>();
  for (const mount of task.mounts ?? []) {
    const target = posix.normalize(mount.target);
    if (!target.startsWith(`${SANDBOX_MOUNT_ROOT}/`) || target !== mount.target) {
      throw new Error(`mount target ${JSON.stringify(mount.target)} must be a normalized path below ${SANDBOX_MOUNT_ROOT}/`);
    }
    if (targets.has(target)) throw new Error(`mount target ${target} is given twice`);
    targets.add(target);
    if (!isAbsolute(mount.source) || !existsSync(mount.source) || !statSync(mount.source).isDirectory()) {
      throw new Error(`mount source ${JSON.stringify(mount.source)} (for ${target}) is not an existing absolute directory`);
    }
    if (!/^[A-Za-z0-9._:-]+$/.test(mount.contentKey)) throw new Error(`mount ${target}: contentKey ${JSON.stringify(mount.contentKey)} must match [A-Za-z0-9._:-]+`);
  }
  if (task.service) {
    if (!/^[a-z0-9-]+$/.test(task.service.name)) throw new Error(`service name ${JSON.stringify(task.service.name)} must match [a-z0-9-]+`);
    if (!existsSync(task.service.socketPath) || !statSync(task.service.socketPath).isSocket()) {
      throw new Error(`service ${task.service.name}: ${task.service.socketPath} is not a listening Unix socket`);
    }
    if (targets.has(serviceSocketTarget(task.service))) throw new Error(`mount target ${serviceSocketTarget(task.service)} collides with the service socket`);
  }
}

/** Env that tells the task where its service is (see ServiceEndpoint). */
export function serviceEnv(service: ServiceEndpoint | undefined, how: { url: string } | { socket: string }): Record<string, string> {
  if (!service) return {};
  return 'url' in how ? { SANDBENCH_SERVICE_URL: how.url } : { SANDBENCH_SERVICE_SOCKET: how.socket };
}

/** Host backend: no mount namespace, so mount targets in argv words and env values map to their
 *  sources, also inside a word (`--config=/run/sandbench/x/c.toml`, a PATH list). A target only
 *  matches as a whole path component run (`/run/sandbench/a` never rewrites `/run/sandbench/ab`). */
export function rewriteTargets(value: string, mounts: readonly SandboxMount[]): string {
  const longestFirst = [...mounts].sort((a, b) => b.target.length - a.target.length);
  for (const mount of longestFirst) {
    const escaped = mount.target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    value = value.replace(new RegExp(`${escaped}(?=$|[/:\\s'"=])`, 'g'), () => mount.source);
  }
  return value;
}
