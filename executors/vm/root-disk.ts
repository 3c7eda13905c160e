/**
 * The task image as a read-only ext4 disk, built once per image digest with `mkfs.ext4 -d`
 * (no mount needed) and pinned for reproducibility: UUID and hash seed derived from the image
 * digest, filesystem timestamps from the image's SOURCE_DATE_EPOCH (E2FSPROGS_FAKE_TIME), no
 * journal (it is never written). ext4 is built into the cloud kernel, so the root needs no module.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { sha256File } from '../../harness/image/ensure-image.ts';
import { withLock } from '../../harness/image/file-lock.ts';
import type { TaskImage } from '../../harness/image/task-image.ts';

export const ROOT_DISK_SERIAL = 'sbroot';

const RootDiskSchema = z.object({
  path: z.string(),
  imageDigest: z.string(),
  /** sha256:<hex> of the disk file. */
  digest: z.string(),
  bytes: z.number(),
  uuid: z.string(),
});
export type RootDisk = z.infer<typeof RootDiskSchema>;

/** A UUID-shaped string derived from a seed, so the same image always gets the same filesystem UUID. */
export function uuidFrom(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

async function treeUsage(dir: string): Promise<{ kib: number; entries: number }> {
  const du = await execa('du', ['-sk', '--apparent-size', dir]);
  const find = await execa('find', [dir, '-xdev'], { stdout: 'pipe' });
  return { kib: Number.parseInt(du.stdout.split(/\s/)[0]!, 10), entries: find.stdout.split('\n').length };
}

async function build(image: TaskImage, dir: string): Promise<RootDisk> {
  const usage = await treeUsage(image.rootfsDir);
  // Headroom for ext4 metadata and 4 KiB block rounding of ~9k small files: +30% and 64 MiB.
  const sizeMiB = Math.ceil((usage.kib * 1.3) / 1024) + 64;
  const inodes = Math.ceil(usage.entries * 1.2) + 1024;
  const uuid = uuidFrom(`sandbench-root:${image.digest}`);
  const partial = join(dir, `root.ext4.${process.pid}.partial`);
  rmSync(partial, { force: true });
  await execa(
    'mkfs.ext4',
    ['-q', '-F', '-L', ROOT_DISK_SERIAL, '-U', uuid, '-N', String(inodes), '-O', '^has_journal', '-E', `hash_seed=${uuid},root_owner=0:0,nodiscard`, '-d', image.rootfsDir, partial, `${sizeMiB}M`],
    { env: { E2FSPROGS_FAKE_TIME: String(image.inputs.sourceDateEpoch) } },
  );
  const path = join(dir, 'root.ext4');
  renameSync(partial, path);
  const disk: RootDisk = { path, imageDigest: image.digest, digest: `sha256:${await sha256File(path)}`, bytes: statSync(path).size, uuid };
  writeFileSync(join(dir, 'root-disk.json'), `${JSON.stringify(disk, null, 2)}\n`);
  return disk;
}

function loadCached(dir: string, image: TaskImage): RootDisk | null {
  const meta = join(dir, 'root-disk.json');
  if (!existsSync(meta)) return null;
  try {
    const disk = RootDiskSchema.parse(JSON.parse(readFileSync(meta, 'utf8')));
    return disk.imageDigest === image.digest && existsSync(disk.path) && statSync(disk.path).size === disk.bytes ? disk : null;
  } catch {
    return null;
  }
}

/** The root disk for this image, built (≈2 s) the first time; safe across concurrent processes. */
export async function ensureRootDisk(stateDir: string, image: TaskImage): Promise<RootDisk> {
  const dir = join(stateDir, 'vm', 'disks', image.digest.replace(/^sha256:/, '').slice(0, 16));
  const cached = loadCached(dir, image);
  if (cached) return cached;
  mkdirSync(dir, { recursive: true });
  return withLock(`${dir}.lock`, async () => loadCached(dir, image) ?? (await build(image, dir)));
}
