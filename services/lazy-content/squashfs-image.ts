/**
 * The lazy client's image: a squashfs of the task image's rootfs, built once per image digest and
 * cached under $SANDBENCH_HOME/lazy/<digest>/. Pinned times and ownership make the bytes a function
 * of the rootfs (zstd: 61 MB of a 209 MB tree; backend-notes "Task root filesystem").
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { withLock } from '../../harness/image/file-lock.ts';
import { sha256File } from '../../harness/image/ensure-image.ts';
import type { TaskImage } from '../../harness/image/task-image.ts';

export interface SquashfsImage {
  path: string;
  bytes: number;
  /** `sha256:<hex>` of the squashfs file. */
  sha256: string;
  /** The task image digest it was built from. */
  sourceDigest: string;
}

/** $SANDBENCH_HOME/lazy/<hex of the task image digest>: every lazy artefact of one image. */
export function lazyCacheDir(stateDir: string, image: Pick<TaskImage, 'digest'>): string {
  return join(stateDir, 'lazy', image.digest.replace(/^sha256:/, ''));
}

export function mksquashfsArgv(rootfsDir: string, out: string, epoch: number): string[] {
  return ['mksquashfs', rootfsDir, out, '-comp', 'zstd', '-noappend', '-all-root', '-mkfs-time', String(epoch), '-all-time', String(epoch), '-no-progress', '-quiet'];
}

export async function ensureSquashfsImage(stateDir: string, image: TaskImage, log: (m: string) => void = () => undefined): Promise<SquashfsImage> {
  const dir = lazyCacheDir(stateDir, image);
  const metaPath = join(dir, 'squashfs.json');
  const read = (): SquashfsImage | null => {
    if (!existsSync(metaPath)) return null;
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as SquashfsImage;
    return existsSync(meta.path) && statSync(meta.path).size === meta.bytes ? meta : null;
  };
  const cached = read();
  if (cached) return cached;
  mkdirSync(dir, { recursive: true });
  return withLock(join(dir, '.squashfs.lock'), async () => {
    const again = read();
    if (again) return again;
    const out = join(dir, 'image.sqfs');
    const partial = `${out}.partial`;
    rmSync(partial, { force: true });
    log(`building squashfs of ${image.digest} (≈40 s, once per image)`);
    const [file, ...args] = mksquashfsArgv(image.rootfsDir, partial, image.inputs.sourceDateEpoch);
    await execa(file!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    renameSync(partial, out);
    const meta: SquashfsImage = { path: out, bytes: statSync(out).size, sha256: `sha256:${await sha256File(out)}`, sourceDigest: image.digest };
    writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    return meta;
  });
}
