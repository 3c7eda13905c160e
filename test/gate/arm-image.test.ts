/**
 * build.image per arm on a real run (staged backend): one arm runs the spec's Debian image, the
 * other a prebuilt busybox-only rootfs tar. The task `test -e /usr/bin/python3` succeeds only in the
 * Debian image, so the journal proves each arm ran its own image; environment.json records the tar's
 * digest for that arm only, and the gate names the image as what differs.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { createStagedExecutor } from '../../executors/staged.ts';
import { runCli } from '../reports/run-cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'sandbench-arm-image-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const staged = await createStagedExecutor().probe();

describe.skipIf(!staged.available)('build.image: a prebuilt rootfs tar for one arm', () => {
  it('each arm runs its own image and the identity is recorded per arm', async () => {
    const rootfs = join(work, 'rootfs');
    for (const dir of ['bin', 'proc', 'dev', 'tmp', 'workspace', 'run', 'etc']) mkdirSync(join(rootfs, dir), { recursive: true });
    copyFileSync('/bin/busybox', join(rootfs, 'bin/busybox'));
    symlinkSync('busybox', join(rootfs, 'bin/sh'));
    const tar = join(work, 'busybox-rootfs.tar');
    await execa('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', '-C', rootfs, '-cf', tar, '.']);
    const spec = join(work, 'image.yaml');
    writeFileSync(spec, [
      'name: arm-image',
      'experiment: command',
      'arms:',
      '  - { backend: staged, variant: debian }',
      '  - { backend: staged, variant: busybox, build: { image: { tar: ./busybox-rootfs.tar } } }',
      'warmups: 0',
      'trials: 2',
      'seed: 4',
      'timeout: 30s',
      'task:',
      '  argv: ["/bin/sh", "-c", "test -e /usr/bin/python3"]',
      '',
    ].join('\n'));
    const out = join(work, 'run');
    await execa('node', [join(ROOT, 'bin/sandbench.mjs'), 'run', spec, '--out', out], { cwd: ROOT, timeout: 300_000, reject: false });
    const records = readFileSync(join(out, 'journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    const outcomes = (variant: string) => records.filter((r) => r.arm.variant === variant).map((r) => `${r.outcome}/${r.exit_code}`);
    expect(outcomes('debian')).toEqual(['ok/0', 'ok/0']);
    expect(outcomes('busybox')).toEqual(['failed/1', 'failed/1']);
    const env = JSON.parse(readFileSync(join(out, 'environment.json'), 'utf8'));
    const digest = `sha256:${createHash('sha256').update(readFileSync(tar)).digest('hex')}`;
    expect(env.arms['staged:busybox'].image_digest).toBe(digest);
    expect(env.arms['staged:debian'].image_digest).toBe(env.image.digest);
    const gate = await runCli(['gate', out, '--baseline-arm', 'staged:debian', '--candidate-arm', 'staged:busybox', '--metric', 'completion_ms', '--max-failed-fraction', '1']);
    expect(gate.stdout).toContain(`the arms differ in build: image: the run image → ${digest.slice(0, 19)}…`);
  }, 300_000);
});
