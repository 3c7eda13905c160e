/**
 * The full-pull baseline's image: the same rootfs.tar as one gzip layer in an OCI image, built by
 * hand once per image digest under $SANDBENCH_HOME/lazy/<digest>/oci/ (no daemon, no podman store
 * touched). The layer's diffID is the task image digest, as after `podman import`. `gzip -n` drops
 * the name and mtime from the header so the same tar gives the same blob.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { withLock } from '../../harness/image/file-lock.ts';
import { sha256File } from '../../harness/image/ensure-image.ts';
import type { TaskImage } from '../../harness/image/task-image.ts';
import { lazyCacheDir } from './squashfs-image.ts';

export const OCI_MANIFEST_TYPE = 'application/vnd.oci.image.manifest.v1+json';

export interface OciBlob {
  digest: string;
  size: number;
  path: string;
  mediaType: string;
}

export interface OciImage {
  /** Canonical manifest bytes (pushed as-is, so its digest is stable). */
  manifestJson: string;
  manifestDigest: string;
  config: OciBlob;
  layers: OciBlob[];
  /** config + layers: what a cold pull must fetch, byte for byte. */
  blobTotalBytes: number;
}

const sha256 = (data: string | Buffer) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

function configJson(image: TaskImage): string {
  const created = new Date(image.inputs.sourceDateEpoch * 1000).toISOString();
  return JSON.stringify({
    created,
    architecture: 'amd64',
    os: 'linux',
    config: { Env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'], Cmd: ['/bin/sh'], Labels: { 'sandbench.image_digest': image.digest } },
    rootfs: { type: 'layers', diff_ids: [image.digest] },
    history: [{ created, created_by: 'sandbench task image (rootfs.tar, one layer)' }],
  });
}

function assemble(config: OciBlob, layer: OciBlob): OciImage {
  const manifestJson = JSON.stringify({
    schemaVersion: 2,
    mediaType: OCI_MANIFEST_TYPE,
    config: { mediaType: config.mediaType, digest: config.digest, size: config.size },
    layers: [{ mediaType: layer.mediaType, digest: layer.digest, size: layer.size }],
  });
  return { manifestJson, manifestDigest: sha256(manifestJson), config, layers: [layer], blobTotalBytes: config.size + layer.size };
}

export async function ensureOciImage(stateDir: string, image: TaskImage, log: (m: string) => void = () => undefined): Promise<OciImage> {
  const dir = join(lazyCacheDir(stateDir, image), 'oci');
  const metaPath = join(dir, 'oci.json');
  const read = (): OciImage | null => {
    if (!existsSync(metaPath)) return null;
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as OciImage;
    const intact = [meta.config, ...meta.layers].every((blob) => existsSync(blob.path) && statSync(blob.path).size === blob.size);
    return intact ? meta : null;
  };
  const cached = read();
  if (cached) return cached;
  mkdirSync(dir, { recursive: true });
  return withLock(join(dir, '.oci.lock'), async () => {
    const again = read();
    if (again) return again;
    log(`building the OCI layer of ${image.digest} (gzip of rootfs.tar, once per image)`);
    const partial = join(dir, 'layer.partial');
    rmSync(partial, { force: true });
    await execa('gzip', ['-n', '-6', '-c', image.tarPath], { stdout: { file: partial }, stderr: 'pipe' });
    const layerDigest = `sha256:${await sha256File(partial)}`;
    const layerPath = join(dir, layerDigest.replace(':', '-'));
    renameSync(partial, layerPath);
    const layer: OciBlob = { digest: layerDigest, size: statSync(layerPath).size, path: layerPath, mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip' };
    const configBytes = configJson(image);
    const configDigest = sha256(configBytes);
    const configPath = join(dir, configDigest.replace(':', '-'));
    writeFileSync(configPath, configBytes);
    const config: OciBlob = { digest: configDigest, size: Buffer.byteLength(configBytes), path: configPath, mediaType: 'application/vnd.oci.image.config.v1+json' };
    const meta = assemble(config, layer);
    writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
    return meta;
  });
}
