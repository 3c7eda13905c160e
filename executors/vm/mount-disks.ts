/**
 * A task's extra read-only mounts (tool layers) as VM disks: one ext4 image per mount, built once
 * from the host directory with `mkfs.ext4 -d` and cached under $SANDBENCH_HOME/vm/mounts/<contentKey>
 * (the caller's key changes when the content does). The guest init finds each disk by its virtio
 * serial (`sbmnt<i>`) and mounts it read-only at the target (scripts/vm-init.sh, SB_MOUNTS).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { SandboxMount } from '../../harness/contracts/executor.ts';
import { withLock } from '../../harness/image/file-lock.ts';

export interface MountDisk {
  serial: string;
  path: string;
  target: string;
}

export const mountDiskSerial = (index: number) => `sbmnt${index}`;

async function usage(dir: string): Promise<{ kib: number; entries: number }> {
  const du = await execa('du', ['-sk', '--apparent-size', dir]);
  const find = await execa('find', [dir, '-xdev']);
  return { kib: Number.parseInt(du.stdout.split(/\s/)[0]!, 10), entries: find.stdout.split('\n').length };
}

async function build(source: string, path: string): Promise<void> {
  const { kib, entries } = await usage(source);
  // Headroom for metadata and 4 KiB block rounding (the same margin as the root disk).
  const sizeMiB = Math.ceil((kib * 1.3) / 1024) + 16;
  const partial = `${path}.${process.pid}.partial`;
  rmSync(partial, { force: true });
  await execa('mkfs.ext4', ['-q', '-F', '-N', String(Math.ceil(entries * 1.2) + 256), '-O', '^has_journal', '-E', 'root_owner=0:0,nodiscard', '-d', source, partial, `${sizeMiB}M`]);
  renameSync(partial, path);
}

/** The cached disk of every mount, in order; safe across concurrent processes. */
export async function ensureMountDisks(stateDir: string, mounts: readonly SandboxMount[]): Promise<MountDisk[]> {
  const dir = join(stateDir, 'vm', 'mounts');
  mkdirSync(dir, { recursive: true });
  const disks: MountDisk[] = [];
  for (const [index, mount] of mounts.entries()) {
    const path = join(dir, `${mount.contentKey}.ext4`);
    const ready = () => existsSync(path) && statSync(path).size > 0;
    if (!ready()) await withLock(`${path}.lock`, async () => (ready() ? undefined : build(mount.source, path)));
    disks.push({ serial: mountDiskSerial(index), path, target: mount.target });
  }
  return disks;
}
