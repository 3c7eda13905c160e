import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContentService, type ContentService } from '../../services/lazy-content/content-service.ts';
import { launchLazyShell, mountLazyRoot } from '../../experiments/lazy-image/lazy-client.ts';
import { mountsUnder, processAlive } from '../../services/lazy-content/mount-table.ts';
import { ensureSquashfsImage, type SquashfsImage } from '../../services/lazy-content/squashfs-image.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { LAZY_TASK_ARGV, observeLaunch } from '../../experiments/lazy-image/launch-observation.ts';

let dir: string;
let squashfs: SquashfsImage;
let service: ContentService;
const cleanup = new CleanupRegistry('tlazyclient');

beforeAll(async () => {
  const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
  squashfs = await ensureSquashfsImage(stateDir(), image);
  service = await startContentService(squashfs.path, 'image.sqfs');
  dir = mkdtempSync(join(tmpdir(), 'sandbench-tlazyclient-'));
}, 600_000);
afterAll(async () => {
  await cleanup.releaseAll();
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('lazy client', () => {
  it('reaches LAZY_READY cold with a small fraction of the image, warm with no content, and leaves nothing behind', async () => {
    service.reset();
    const mount = await mountLazyRoot({ fileUrl: service.fileUrl, fileName: service.fileName, workDir: join(dir, 'c1'), cleanup, timeoutMs: 30_000 });
    // The mounts live only in the client's own namespace, never in the host's.
    expect(mountsUnder(join(dir, 'c1'))).toEqual([]);
    expect(mountsUnder(join(dir, 'c1'), mount.namespacePid).sort()).toEqual([join(dir, 'c1', 'fuse'), join(dir, 'c1', 'root')]);
    const cold = await observeLaunch(launchLazyShell(mount, LAZY_TASK_ARGV, 30_000), mount.tStartNs);
    const coldBytes = service.read();
    expect(cold.exit.exitCode).toBe(0);
    expect(cold.readyCount).toBe(1);
    expect(cold.resultCount).toBe(1);
    expect(cold.readyMs).toBeGreaterThan(0);
    expect(coldBytes.contentBytes).toBeGreaterThan(0);
    // Far below the image: the shell touches sh, libc and the loader, not python3 or git.
    expect(coldBytes.contentBytes).toBeLessThan(squashfs.bytes * 0.1);

    service.reset();
    const warm = await observeLaunch(launchLazyShell(mount, LAZY_TASK_ARGV, 30_000), 0n);
    expect(warm.exit.exitCode).toBe(0);
    expect(warm.readyCount).toBe(1);
    expect(service.read().contentBytes).toBe(0);

    await mount.release();
    expect(mountsUnder(join(dir, 'c1'))).toEqual([]);
    expect(processAlive(mount.httpfs2Pid)).toBe(false);
    expect(processAlive(mount.namespacePid)).toBe(false);
    expect(cleanup.pending()).toEqual([]);
    console.log(`lazy cold ready ${cold.readyMs?.toFixed(1)} ms, content ${coldBytes.contentBytes} B in ${coldBytes.requests} requests of ${squashfs.bytes} B image`);
  });

  it('a second cold client starts from an empty cache and fetches again', async () => {
    service.reset();
    const mount = await mountLazyRoot({ fileUrl: service.fileUrl, fileName: service.fileName, workDir: join(dir, 'c2'), cleanup, timeoutMs: 30_000 });
    const cold = await observeLaunch(launchLazyShell(mount, LAZY_TASK_ARGV, 30_000), mount.tStartNs);
    await mount.release();
    expect(cold.exit.exitCode).toBe(0);
    expect(service.read().contentBytes).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'c2', 'root', 'bin'))).toBe(false);
  });
});
