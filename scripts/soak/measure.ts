/**
 * A snapshot's raw facts → one value per series of scripts/soak/resources.ts (pure). A backend the
 * machine lacks gives null (a gap, never a zero that would read as "nothing leaked").
 */
import type { HostSnapshot } from './snapshot.ts';

export type SampleValues = Record<string, number | null>;

const MIB = 1024 * 1024;

export function qemuProcesses(procs: HostSnapshot['procs']): number {
  // comm is the executable's name cut at 15 characters: qemu-system-x86, qemu-system-aar...
  return procs.filter((p) => p.comm.startsWith('qemu-system')).length;
}

export function dockerdProcesses(procs: HostSnapshot['procs'], markers: readonly string[]): number {
  return procs.filter((p) => markers.some((marker) => p.cmdline.includes(marker))).length;
}

/** Used bytes summed once per device (/, /tmp and the state dir are often one filesystem). */
export function diskUsedBytes(disks: HostSnapshot['disks']): number {
  const byDevice = new Map(disks.map((d) => [d.dev, d.usedBytes]));
  return [...byDevice.values()].reduce((a, b) => a + b, 0);
}

export function measure(snapshot: HostSnapshot, bundlesWritten: number): SampleValues {
  return {
    'harness.rss': snapshot.self.rssBytes / MIB,
    'harness.heap': snapshot.self.heapUsedBytes / MIB,
    'harness.fds': snapshot.self.fds,
    'tmp.entries': snapshot.tmp.entries,
    'tmp.files': snapshot.tmp.files,
    'state.files': snapshot.state.files,
    'scratch.dirs': snapshot.scratch.runDirs,
    'scratch.files': snapshot.scratch.files,
    'bundles.kept.files': snapshot.bundlesKept.files,
    'bundles.written': bundlesWritten,
    leftovers: snapshot.leftovers,
    'cgroups.sandbench': snapshot.cgroupsSandbench,
    'cgroups.all': snapshot.cgroupsAll,
    'mounts.all': snapshot.mountLines,
    'mounts.sandbench': snapshot.sandbenchMounts,
    'podman.containers': snapshot.podman?.containers ?? null,
    'podman.images': snapshot.podman?.images ?? null,
    'podman.volumes': snapshot.podman?.volumes ?? null,
    'docker.containers': snapshot.docker?.containers ?? null,
    'docker.images': snapshot.docker?.images ?? null,
    'docker.volumes': snapshot.docker?.volumes ?? null,
    'processes.qemu': qemuProcesses(snapshot.procs),
    'processes.dockerd': dockerdProcesses(snapshot.procs, snapshot.dockerdMarkers),
    'processes.all': snapshot.procs.length,
    'disk.used': diskUsedBytes(snapshot.disks) / MIB,
    'load.1m': snapshot.load1,
  };
}
