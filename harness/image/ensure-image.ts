/**
 * Builds the task image once per set of inputs and caches it under $SANDBENCH_HOME/images/.
 * The cache key is a hash of the inputs (suite, packages, mirror, epoch, builder script); the image's
 * identity is the sha256 of the deterministic tar. A half-built or damaged entry is rebuilt.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../state-dir.ts';
import { configuredDebianMirror } from './apt-mirror.ts';
import { withLock } from './file-lock.ts';
import type { TaskImage, TaskImageInputs } from './task-image.ts';

export interface ImageRequest {
  suite: string;
  packages: string[];
  mirror?: string;
  source_date_epoch: number;
}

const BUILDER_SCRIPT = join(PROJECT_ROOT, 'scripts', 'build-task-image.sh');

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function resolveImageInputs(request: ImageRequest): TaskImageInputs {
  return {
    suite: request.suite,
    mirror: request.mirror ?? configuredDebianMirror(),
    packages: [...request.packages].sort(),
    sourceDateEpoch: request.source_date_epoch,
    builderScriptSha256: createHash('sha256').update(readFileSync(BUILDER_SCRIPT)).digest('hex'),
  };
}

export function imageCacheDir(stateDir: string, inputs: TaskImageInputs): string {
  const key = createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16);
  return join(stateDir, 'images', key);
}

function loadCached(dir: string): TaskImage | null {
  const metaPath = join(dir, 'image.json');
  if (!existsSync(metaPath)) return null;
  try {
    const image = JSON.parse(readFileSync(metaPath, 'utf8')) as TaskImage & { tarBytes: number };
    const intact =
      existsSync(image.tarPath) &&
      statSync(image.tarPath).size === image.tarBytes &&
      existsSync(join(image.rootfsDir, 'usr', 'bin', 'python3')) &&
      existsSync(join(image.rootfsDir, 'bin', 'sh'));
    return intact ? image : null;
  } catch {
    return null;
  }
}

async function buildInto(dir: string, inputs: TaskImageInputs, log: (m: string) => void): Promise<TaskImage> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tarPath = join(dir, 'rootfs.tar');
  log(`building task image (${inputs.suite}: ${inputs.packages.join(', ')}) from ${inputs.mirror}; about a minute the first time`);
  await execa('sh', [BUILDER_SCRIPT, tarPath, inputs.suite, inputs.mirror, inputs.packages.join(','), String(inputs.sourceDateEpoch)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const rootfsTmp = join(dir, 'rootfs.partial');
  mkdirSync(rootfsTmp);
  await execa('tar', ['-xf', tarPath, '-C', rootfsTmp, '--numeric-owner']);
  renameSync(rootfsTmp, join(dir, 'rootfs'));
  const image = {
    digest: `sha256:${await sha256File(tarPath)}`,
    dir,
    tarPath,
    rootfsDir: join(dir, 'rootfs'),
    inputs,
    tarBytes: statSync(tarPath).size,
  };
  writeFileSync(join(dir, 'image.json'), `${JSON.stringify(image, null, 2)}\n`);
  log(`task image ${image.digest} ready`);
  return image;
}

/** The cached image for these inputs, built first when missing or damaged. Safe across concurrent processes. */
export async function ensureTaskImage(stateDir: string, request: ImageRequest, log: (m: string) => void = () => undefined): Promise<TaskImage> {
  const inputs = resolveImageInputs(request);
  const dir = imageCacheDir(stateDir, inputs);
  const cached = loadCached(dir);
  if (cached) return cached;
  mkdirSync(join(stateDir, 'images'), { recursive: true });
  return withLock(`${dir}.lock`, async () => loadCached(dir) ?? (await buildInto(dir, inputs, log)));
}

/** Recompute the tar digest and compare with the recorded one (used by `images build --verify`). */
export async function verifyTaskImage(image: TaskImage): Promise<boolean> {
  return `sha256:${await sha256File(image.tarPath)}` === image.digest;
}
