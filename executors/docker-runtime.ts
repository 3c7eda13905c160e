/**
 * A docker arm's build.runtime (harness/spec/arm-build.ts): `docker run --runtime` takes a runtime
 * *name* the daemon knows, not a path, so the binary is registered in sandbench's private dockerd
 * config (`runtimes: {<name>: {path}}`) and the daemon reloads it on SIGHUP (runtimes are a
 * reloadable option; running containers are untouched). The name is derived from the path, so
 * concurrent runs sharing the daemon add, never replace, each other's runtimes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { withLock } from '../harness/image/file-lock.ts';
import type { DockerdPaths } from './dockerd-manager.ts';

export function dockerRuntimeName(path: string): string {
  return `sandbench-${createHash('sha256').update(path).digest('hex').slice(0, 12)}`;
}

async function daemonKnows(cli: string, host: string, name: string): Promise<boolean> {
  const info = await execa(cli, ['-H', host, 'info', '--format', '{{json .Runtimes}}'], { reject: false, timeout: 15_000 });
  return info.exitCode === 0 && Object.hasOwn(JSON.parse(info.stdout.trim() || '{}'), name);
}

/** Registers `path` under its derived name in the private dockerd and waits until the daemon lists it. */
export async function registerDockerRuntime(paths: DockerdPaths, cli: string, path: string): Promise<string> {
  const name = dockerRuntimeName(path);
  if (await daemonKnows(cli, paths.host, name)) return name;
  await withLock(join(paths.base, 'runtimes.lock'), async () => {
    const config = existsSync(paths.configFile) ? (JSON.parse(readFileSync(paths.configFile, 'utf8') || '{}') as { runtimes?: Record<string, { path: string }> }) : {};
    config.runtimes = { ...(config.runtimes ?? {}), [name]: { path } };
    writeFileSync(paths.configFile, `${JSON.stringify(config, null, 2)}\n`);
    const pid = Number(readFileSync(paths.pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`docker build.runtime: no dockerd pid in ${paths.pidFile}`);
    process.kill(pid, 'SIGHUP');
  });
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await daemonKnows(cli, paths.host, name)) return name;
    await sleep(200);
  }
  throw new Error(`docker build.runtime ${path}: the private dockerd did not load runtime ${name} after SIGHUP (see ${paths.logFile})`);
}
