/**
 * containerd leaves every restore's unpacked checkpoint in its TMPDIR: the docker mechanism removes
 * the copies of one trial's checkpoint at discard, and nothing else (another trial's checkpoint, even
 * of the same sizes, a copy still being unpacked, a dir of another name).
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeUnpackedCopies } from '../../executors/checkpoint/docker-mechanism.ts';
import { dockerdEnv, dockerdPaths } from '../../executors/dockerd-manager.ts';
import { tempDir } from '../support/temp-dirs.ts';

function checkpoint(dir: string, pages: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'inventory.img'), 'inventory');
  writeFileSync(join(dir, 'pages-1.img'), pages);
  writeFileSync(join(dir, 'descriptors.json'), '[]');
  return dir;
}

describe('unpacked checkpoint copies', () => {
  it('removes exact copies (and copies with extra files), keeps every other dir', () => {
    const root = tempDir('sandbench-ctrd-');
    const ours = checkpoint(join(root, 'parent', 'checkpoints', 'sandbench'), 'memory of our parent');
    const tmp = join(root, 'containerd-tmp');
    mkdirSync(tmp);
    cpSync(ours, join(tmp, 'ctrd-checkpoint111'), { recursive: true });
    cpSync(ours, join(tmp, 'ctrd-checkpoint222'), { recursive: true });
    writeFileSync(join(tmp, 'ctrd-checkpoint222', 'restore.log'), 'log');
    checkpoint(join(tmp, 'ctrd-checkpoint333'), 'memory of another trial');
    checkpoint(join(tmp, 'ctrd-checkpoint555'), 'memory of our parenX');
    mkdirSync(join(tmp, 'ctrd-checkpoint444'));
    writeFileSync(join(tmp, 'ctrd-checkpoint444', 'inventory.img'), 'inventory');
    cpSync(ours, join(tmp, 'other-name'), { recursive: true });
    expect(removeUnpackedCopies([join(root, 'absent'), tmp, tmp], ours)).toBe(2);
    expect(['111', '222', '333', '444', '555'].map((n) => existsSync(join(tmp, `ctrd-checkpoint${n}`)))).toEqual([false, false, true, true, true]);
    expect(existsSync(join(tmp, 'other-name'))).toBe(true);
    expect(existsSync(ours)).toBe(true);
    expect(removeUnpackedCopies([tmp], join(root, 'no-checkpoint'))).toBe(0);
  });

  it("containerd's TMPDIR is the daemon's own dir, whatever the caller's TMPDIR", () => {
    const paths = dockerdPaths('/root/.cache/sandbench');
    expect(paths.tmpDir).toBe('/root/.cache/sandbench/docker/containerd-tmp');
    expect(dockerdEnv(paths.tmpDir).TMPDIR).toBe(paths.tmpDir);
    expect(dockerdEnv(paths.tmpDir).PATH).toContain(process.env.PATH);
  });
});
