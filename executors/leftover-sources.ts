/**
 * The container backends' leftover finders for `sandbench clean` (harness/clean/leftover.ts), each
 * named by its backend's descriptor (executors/backends/):
 * containers labelled with a run id on Podman and on the harness's private Docker engine, and a
 * private dockerd that no live lease holds.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Leftover, LeftoverSource } from '../harness/clean/leftover.ts';
import { UNKNOWN_RUN } from '../harness/clean/run-ids.ts';
import { isAlive } from '../harness/controls/proc-tree.ts';
import { RUN_LABEL } from '../harness/run/cleanup-registry.ts';
import { engineExec, removeContainer, type ContainerEngine } from './container-common.ts';
import { harnessDockerEngine } from './docker.ts';
import { dockerdPaths, stopHarnessDockerd } from './dockerd-manager.ts';
import { PODMAN } from './podman.ts';

async function labelledContainers(engine: ContainerEngine): Promise<Leftover[]> {
  // docker's ps template has .Labels as one comma-joined string (index fails: "cannot index
  // slice/array with type string") and .Label KEY for one label; podman's .Labels is a map.
  const label = engine.kind === 'docker' ? `{{.Label "${RUN_LABEL}"}}` : `{{index .Labels "${RUN_LABEL}"}}`;
  const result = await engineExec(engine, ['ps', '--all', '--filter', `label=${RUN_LABEL}`, '--format', `{{.Names}}\t${label}`], 60_000);
  if (result.exitCode !== 0) return [];
  return result.stdout
    .split('\n')
    .map((line) => line.trim().split('\t'))
    .filter((parts) => parts[0])
    .map(([name, runId]) => ({ kind: 'container', id: `${engine.kind}/${name}`, runId: runId || UNKNOWN_RUN, remove: () => removeContainer(engine, name!) }));
}

export const podmanContainers: LeftoverSource = {
  name: 'podman containers',
  async find() {
    if ((await execa('podman', ['--version'], { reject: false })).exitCode !== 0) return [];
    return labelledContainers(PODMAN);
  },
};

export const dockerContainers: LeftoverSource = {
  name: 'docker containers (harness engine)',
  async find(stateDir) {
    const engine = await harnessDockerEngine(stateDir).catch(() => null);
    return engine ? labelledContainers(engine) : [];
  },
};

/** The harness dockerd when it runs and no live lease holds it (leases are read, never pruned here). */
function orphanedDockerd(stateDir: string): { pid: number; runId: string } | null {
  const paths = dockerdPaths(stateDir);
  if (!existsSync(paths.base)) return null;
  let pid: number;
  let cmdline: string;
  try {
    pid = Number(readFileSync(paths.pidFile, 'utf8').trim());
    if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
  if (!cmdline.includes(paths.dataRoot)) return null;
  const leases = existsSync(paths.leasesDir) ? readdirSync(paths.leasesDir) : [];
  for (const entry of leases) {
    try {
      const lease = JSON.parse(readFileSync(join(paths.leasesDir, entry), 'utf8')) as { holderPid: number };
      if (isAlive(lease.holderPid)) return null;
    } catch {
      // torn lease: holds nothing
    }
  }
  const startedBy = readdirSync(paths.base).map((entry) => /^dockerd-sandbench-(.*)\.pid$/.exec(entry)?.[1]).find(Boolean);
  return { pid, runId: startedBy ?? UNKNOWN_RUN };
}

export const harnessDockerd: LeftoverSource = {
  name: 'private dockerd',
  async find(stateDir) {
    const daemon = orphanedDockerd(stateDir);
    if (!daemon) return [];
    return [{ kind: 'daemon', id: `dockerd/${daemon.pid}`, runId: daemon.runId, remove: async () => void (await stopHarnessDockerd(stateDir)) }];
  },
};

