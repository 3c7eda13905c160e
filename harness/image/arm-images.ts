/**
 * The task images of arms that declare their own (`arms[i].build.image`, harness/spec/arm-build.ts):
 * a package list is built like the run's image (same suite, mirror and epoch; its own cache entry);
 * a prebuilt rootfs tar is unpacked once into a cache entry keyed by the tar's sha256, which is also
 * its digest (the same rule as a built image: the tar's sha256 is the layer diffID after import).
 */
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { armLabel } from '../spec/arm-label.ts';
import type { ArmBuild } from '../spec/arm-build.ts';
import { ensureTaskImage, sha256File, type ImageRequest } from './ensure-image.ts';
import { withLock } from './file-lock.ts';
import type { TaskImage } from './task-image.ts';

interface ArmWithImage {
  backend: string;
  variant?: string;
  build?: ArmBuild;
}

async function imageFromTar(stateDir: string, tarPath: string, base: ImageRequest, log: (m: string) => void): Promise<TaskImage> {
  const hex = await sha256File(tarPath);
  const dir = join(stateDir, 'images', `tar-${hex.slice(0, 16)}`);
  const metaPath = join(dir, 'image.json');
  const cached = (): TaskImage | null => {
    if (!existsSync(metaPath)) return null;
    const image = JSON.parse(readFileSync(metaPath, 'utf8')) as TaskImage;
    return existsSync(join(image.rootfsDir, 'bin', 'sh')) ? { ...image, tarPath } : null;
  };
  mkdirSync(join(stateDir, 'images'), { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    const hit = cached();
    if (hit) return hit;
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    log(`unpacking the arm's image tar ${tarPath} (sha256:${hex.slice(0, 12)}…)`);
    const partial = join(dir, 'rootfs.partial');
    mkdirSync(partial);
    await execa('tar', ['-xf', tarPath, '-C', partial, '--numeric-owner']);
    if (!existsSync(join(partial, 'bin', 'sh'))) throw new Error(`${tarPath}: not a root filesystem tar (no /bin/sh inside)`);
    renameSync(partial, join(dir, 'rootfs'));
    const image: TaskImage = {
      digest: `sha256:${hex}`,
      dir,
      tarPath,
      rootfsDir: join(dir, 'rootfs'),
      // A prebuilt tar: the suite and packages are unknown; the digest is its identity.
      inputs: { suite: `prebuilt tar ${tarPath}`, mirror: '', packages: [], sourceDateEpoch: base.source_date_epoch, builderScriptSha256: '' },
    };
    writeFileSync(metaPath, `${JSON.stringify({ ...image, tarBytes: statSync(tarPath).size }, null, 2)}\n`);
    return image;
  });
}

/** Arm label → its own image, for every arm whose build names one; arms without keep the run's image. */
export async function ensureArmImages(stateDir: string, arms: readonly ArmWithImage[], base: ImageRequest, log: (m: string) => void = () => undefined): Promise<Map<string, TaskImage>> {
  const images = new Map<string, TaskImage>();
  for (const arm of arms) {
    const wanted = arm.build?.image;
    if (!wanted) continue;
    const image = 'tar' in wanted ? await imageFromTar(stateDir, wanted.tar, base, log) : await ensureTaskImage(stateDir, { ...base, packages: wanted.packages }, log);
    images.set(armLabel(arm), image);
  }
  return images;
}
