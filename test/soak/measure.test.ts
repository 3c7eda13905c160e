import { mkdirSync, openSync, closeSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diskUsedBytes, dockerdProcesses, measure, qemuProcesses } from '../../scripts/soak/measure.ts';
import { RESOURCES } from '../../scripts/soak/resources.ts';
import { countTree, type HostSnapshot } from '../../scripts/soak/snapshot.ts';
import { growthLines, topGrowth, TREE_SERIES } from '../../scripts/soak/attribution.ts';
import { tempDir } from '../support/temp-dirs.ts';

const MIB = 1024 * 1024;

function snapshot(overrides: Partial<HostSnapshot> = {}): HostSnapshot {
  return {
    self: { rssBytes: 200 * MIB, heapUsedBytes: 50 * MIB, fds: 30 },
    load1: 3.5,
    procs: [
      { comm: 'qemu-system-x86', cmdline: 'qemu-system-x86_64 -name sandbench-r1-t1' },
      { comm: 'dockerd', cmdline: 'dockerd --data-root /s/docker/data' },
      { comm: 'containerd-shim', cmdline: 'containerd-shim-runc-v2 -address /s/docker/exec/containerd.sock' },
      { comm: 'node', cmdline: 'node qemu-system-helper.js' },
    ],
    dockerdMarkers: ['/s/docker', '/s/docker/data'],
    mountLines: 40,
    sandbenchMounts: 2,
    cgroupsAll: 120,
    cgroupsSandbench: 1,
    tmp: { entries: 10, files: 300, byEntry: {} },
    state: { entries: 7, files: 9000, byEntry: {} },
    scratch: { runDirs: 1, files: 50, byEntry: {} },
    bundlesKept: { entries: 3, files: 60, byEntry: {} },
    leftovers: 0,
    podman: { containers: 2, images: 5, volumes: 0 },
    docker: null,
    disks: [
      { dev: 1, usedBytes: 10 * MIB },
      { dev: 1, usedBytes: 10 * MIB },
      { dev: 2, usedBytes: 6 * MIB },
    ],
    ...overrides,
  };
}

describe('soak sampling: a snapshot\'s facts → one value per series', () => {
  it('counts qemu by executable name (not by argv), and dockerd processes by their state dir in argv', () => {
    const { procs, dockerdMarkers } = snapshot();
    expect(qemuProcesses(procs)).toBe(1);
    expect(dockerdProcesses(procs, dockerdMarkers)).toBe(2);
  });

  it('sums disk use once per device', () => {
    expect(diskUsedBytes(snapshot().disks)).toBe(16 * MIB);
  });

  it('gives every resource a value, MiB for memory and disk, and null (a gap, not 0) for a missing engine', () => {
    const values = measure(snapshot(), 7);
    expect(Object.keys(values).sort()).toEqual(RESOURCES.map((r) => r.id).sort());
    expect(values).toMatchObject({ 'harness.rss': 200, 'harness.heap': 50, 'disk.used': 16, 'bundles.written': 7, 'podman.containers': 2, 'processes.all': 4, 'load.1m': 3.5 });
    expect(values['docker.images']).toBeNull();
  });
});

describe('naming what grew', () => {
  it('lists the entries that grew most, new ones included, and none that shrank', () => {
    const growth = topGrowth({ 'ctrd-checkpoint1': 10, 'sb-suite-a': 500, venv: 100 }, { 'ctrd-checkpoint1': 10, 'ctrd-checkpoint2': 10, venv: 900 }, 5);
    expect(growth).toEqual([
      { entry: 'venv', before: 100, after: 900, growth: 800 },
      { entry: 'ctrd-checkpoint2', before: 0, after: 10, growth: 10 },
    ]);
    expect(topGrowth({}, { a: 1, b: 2, c: 3 }, 2).map((g) => g.entry)).toEqual(['c', 'b']);
    expect(growthLines('tmp.files', growth)[1]).toBe('  venv: 100 → 900 (+800)');
    expect(growthLines('tmp.files', [])).toEqual(['tmp.files: no part grew']);
  });

  it('attributes process growth by executable name', () => {
    const procs = [{ comm: 'node', cmdline: '' }, { comm: 'qemu-system-x86', cmdline: '' }, { comm: 'node', cmdline: '' }];
    expect(TREE_SERIES['processes.all'](snapshot({ procs }))).toEqual({ node: 2, 'qemu-system-x86': 1 });
  });
});

describe('countTree (the walk behind the file series)', () => {
  it('counts entries and files recursively, links as entries without following them', () => {
    const root = tempDir('soak-tree');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'f'), 'x');
    writeFileSync(join(root, 'g'), 'y');
    symlinkSync('/usr', join(root, 'link'));
    expect(countTree(root)).toEqual({ entries: 3, files: 5, byEntry: { a: 3, g: 1, link: 1 } });
    expect(countTree(join(root, 'absent'))).toEqual({ entries: 0, files: 0, byEntry: {} });
  });

  it('sees this process\'s open descriptors grow in /proc/self/fd (the harness.fds series)', async () => {
    const { takeSnapshot } = await import('../../scripts/soak/snapshot.ts');
    const root = tempDir('soak-fds');
    const context = { stateDir: root, bundlesDir: root, leftoverSources: [] };
    const before = (await takeSnapshot(context)).self.fds;
    const fds = Array.from({ length: 20 }, (_, i) => openSync(join(root, `f${i}`), 'w'));
    const after = await takeSnapshot(context);
    for (const fd of fds) closeSync(fd);
    expect(after.self.fds - before).toBeGreaterThanOrEqual(20);
    expect(after.bundlesKept.files).toBe(20);
    expect(after.procs.length).toBeGreaterThan(1);
  }, 120_000);
});
