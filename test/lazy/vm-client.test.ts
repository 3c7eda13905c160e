/**
 * The lazy-image VM clients: the root drive swap and the overlay's backing (pure), the full pull's
 * byte accounting at the content service, and one real cold + warm vm-lazy launch (TCG guest): cold
 * fetches part of the disk, warm fetches no content, nothing is left behind.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { fullRootDrive, lazyBacking, lazyRootDrive, pullWholeDisk, withRootDrive } from '../../experiments/lazy-image/vm-client.ts';
import { openVmCampaign, runVmTrial } from '../../experiments/lazy-image/vm-launch.ts';
import { LAZY_TASK_ARGV } from '../../experiments/lazy-image/launch-observation.ts';
import { startContentService } from '../../services/lazy-content/content-service.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { stateDir } from '../../harness/state-dir.ts';
import type { RunContext } from '../../harness/contracts/executor.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('lazy-image VM clients', () => {
  it('swaps only the root drive and gives the overlay a curl backing with a long timeout', async () => {
    const argv = ['qemu', '-drive', 'id=root,file=/r,format=raw,if=none,readonly=on', '-device', 'virtio-blk-device,drive=root,serial=sbroot', '-drive', 'id=task,file=/t'];
    expect(withRootDrive(argv, lazyRootDrive('/x/a,b.qcow2'))).toEqual(['qemu', '-drive', 'id=root,driver=qcow2,file.driver=file,file.filename=/x/a,,b.qcow2,copy-on-read=on,if=none', ...argv.slice(3)]);
    expect(withRootDrive(argv, fullRootDrive('/x/root.ext4'))[2]).toBe('id=root,file=/x/root.ext4,format=raw,if=none,readonly=on');
    expect(() => withRootDrive(['qemu'], 'x')).toThrow(/no root drive/);
    const backing = lazyBacking('http://127.0.0.1:1/root.ext4');
    expect(JSON.parse(backing.replace(/^json:/, ''))).toEqual({ file: { driver: 'http', url: 'http://127.0.0.1:1/root.ext4', timeout: 300 } });
    // qemu-img accepts it as the backing of a raw-format overlay without fetching anything.
    const dir = tempDir('sandbench-vm-overlay-');
    await execa('qemu-img', ['create', '-q', '-f', 'qcow2', '-u', '-b', backing, '-F', 'raw', join(dir, 'o.qcow2'), '1048576']);
    expect((await execa('qemu-img', ['info', join(dir, 'o.qcow2')])).stdout).toMatch(/backing file: json:\{"file":\{"driver":"http"/);
  });

  it('counts a full pull as exactly the served file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-vm-pull-'));
    const file = join(dir, 'disk.raw');
    writeFileSync(file, randomBytes(3 * 1024 * 1024 + 17));
    const service = await startContentService(file, 'disk.raw', { keepAliveMs: 1000 });
    try {
      const bytes = await pullWholeDisk(service.fileUrl, join(dir, 'copy.raw'), 10_000);
      expect(bytes).toBe(statSync(file).size);
      expect(readFileSync(join(dir, 'copy.raw')).equals(readFileSync(file))).toBe(true);
      expect(service.read()).toMatchObject({ requests: 1, contentBytes: bytes, byKind: { 'GET whole': 1 } });
      await expect(pullWholeDisk(`${service.url}/nope`, join(dir, 'x'), 10_000)).rejects.toThrow(/HTTP 404/);
    } finally {
      await service.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('boots a guest on the disk over HTTP: cold fetches part of the disk, warm fetches no content', async () => {
    const runId = `tlazyvm${randomBytes(3).toString('hex')}`;
    const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
    const cleanup = new CleanupRegistry(runId);
    const run: RunContext = { runId, image, stateDir: stateDir(), cleanup, log: () => undefined, options: {} };
    const vm = await openVmCampaign(run);
    const planned = (state: 'cold' | 'warm', block: number): PlannedTrial => ({ trial_id: `b000${block}-vm-lazy:${state}`, block, position: state === 'cold' ? 0 : 1, warmup: false, arm: { backend: 'vm-lazy', variant: state }, seed: 1, params: { phase: 'formal' } });
    try {
      // A boot takes 5-8 s here, 15 s in the busy suite: 120 s is a wide margin.
      const launch = { argv: LAZY_TASK_ARGV, timeoutMs: 120_000, cpus: null };
      let cold = await runVmTrial(planned('cold', 0), run, vm, launch);
      let warm = await runVmTrial(planned('warm', 0), run, vm, launch);
      if (cold.failure_category === 'timeout' && cold.ready_ms === null) {
        // The open vm-lazy cold stall (QEMU 7.2's curl driver issues no read after its first; ~1 in
        // 30 cold boots, README "Lazy image into a VM"), which runs record as `timeout`. One new pair
        // is allowed so the suite does not fail on it; a second stall, or any other failure, fails.
        console.warn(`vm-lazy cold stall (${cold.notes.join('; ')}); metrics ${JSON.stringify(cold.metrics)}; one more cold + warm pair`);
        cold = await runVmTrial(planned('cold', 1), run, vm, launch);
        warm = await runVmTrial(planned('warm', 1), run, vm, launch);
      }
      expect(cold.outcome, cold.notes.join('; ')).toBe('ok');
      expect(warm.outcome, warm.notes.join('; ')).toBe('ok');
      const diskBytes = vm.disk.fileBytes;
      expect(cold.metrics.content_bytes).toBeGreaterThan(0);
      expect(cold.metrics.content_bytes!).toBeLessThan(diskBytes / 5);
      expect(cold.metrics.fetch_phase_ms).toBeGreaterThan(0);
      expect(warm.metrics.content_bytes).toBe(0);
      expect(warm.validity.warm_zero_content).toBe('pass');
      expect(cold.ready_ms!).toBeGreaterThan(0);
      expect(cold.facts.campaign_valid).toBe(true);
    } finally {
      await vm.tearDown();
      const left = await cleanup.releaseAll();
      expect(left).toEqual([]);
    }
    // up to four TCG boots, each allowed 120 s: a test timeout below that abandons the guest and its dirs
  }, 540_000);
});
