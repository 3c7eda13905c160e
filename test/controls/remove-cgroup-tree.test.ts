/**
 * removeCgroupTree against a temporary directory that behaves as cgroupfs does at rmdir: a cgroup's
 * own interface files never block it, a child cgroup or a live task does (EBUSY), and a missing
 * directory is ENOENT. Every call is counted, so the cheap path (one rmdir, no listing) is asserted.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeCgroupIo, removeCgroupTree, type CgroupIo } from '../../harness/controls/cgroup-io.ts';

let root: string;
let calls: { rmdir: string[]; subdirs: string[] };
/** Directories whose rmdir fails as a cgroup with a live task does. */
let busy: Set<string>;

function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: rmdir '${path}'`), { code });
}

const cgroupfs: CgroupIo = {
  ...nodeCgroupIo,
  mkdir(path) {
    mkdirSync(path);
    for (const file of ['cgroup.procs', 'memory.max_usage_in_bytes', 'cpuset.cpus']) writeFileSync(join(path, file), '');
  },
  rmdir(path) {
    calls.rmdir.push(path);
    if (!existsSync(path)) throw errno('ENOENT', path);
    const children = readdirSync(path, { withFileTypes: true }).some((entry) => entry.isDirectory());
    if (children || busy.has(path)) throw errno('EBUSY', path);
    rmSync(path, { recursive: true });
  },
  subdirs(path) {
    calls.subdirs.push(path);
    return nodeCgroupIo.subdirs(path);
  },
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sandbench-cgtree-'));
  calls = { rmdir: [], subdirs: [] };
  busy = new Set();
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('removeCgroupTree', () => {
  it('removes a childless cgroup with one rmdir and no listing', () => {
    const dir = join(root, 'a1');
    cgroupfs.mkdir(dir);
    const failures: string[] = [];
    removeCgroupTree(cgroupfs, dir, failures);
    expect(failures).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(calls).toEqual({ rmdir: [dir], subdirs: [] });
  });

  it('removes the child cgroups a runtime made, deepest first, then the cgroup', () => {
    const dir = join(root, 'a2');
    cgroupfs.mkdir(dir);
    cgroupfs.mkdir(join(dir, 'libpod-1'));
    cgroupfs.mkdir(join(dir, 'libpod-1', 'container'));
    cgroupfs.mkdir(join(dir, 'conmon'));
    const failures: string[] = [];
    removeCgroupTree(cgroupfs, dir, failures);
    expect(failures).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    expect(calls.rmdir.at(-1)).toBe(dir);
    expect(calls.rmdir.indexOf(join(dir, 'libpod-1', 'container'))).toBeLessThan(calls.rmdir.lastIndexOf(join(dir, 'libpod-1')));
  });

  it('is no failure when the cgroup is already gone', () => {
    const failures: string[] = [];
    removeCgroupTree(cgroupfs, join(root, 'never-made'), failures);
    expect(failures).toEqual([]);
  });

  it('reports a cgroup that stays busy, and still removes its removable children', () => {
    const dir = join(root, 'a3');
    cgroupfs.mkdir(dir);
    cgroupfs.mkdir(join(dir, 'child'));
    busy.add(dir);
    const failures: string[] = [];
    removeCgroupTree(cgroupfs, dir, failures);
    expect(existsSync(join(dir, 'child'))).toBe(false);
    expect(failures).toEqual([`${dir}: EBUSY: rmdir '${dir}'`]);
  });

  it('reports any other error at once, without listing', () => {
    const failing: CgroupIo = {
      ...cgroupfs,
      rmdir: (path) => {
        throw errno('EACCES', path);
      },
    };
    const failures: string[] = [];
    removeCgroupTree(failing, join(root, 'x'), failures);
    expect(failures).toEqual([`${join(root, 'x')}: EACCES: rmdir '${join(root, 'x')}'`]);
    expect(calls.subdirs).toEqual([]);
  });
});
