import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { criuDoctorLine, criuVerdict, parseCriuVersion, probeCriu } from '../../executors/checkpoint/criu.ts';

describe('CRIU version policy', () => {
  it('refuses 3.x (vDSO) and 4.1 (AF_INET) with the reason, accepts 4.2+', () => {
    expect(criuVerdict('3.17.1')).toMatchObject({ usable: false, reason: expect.stringMatching(/vDSO/) });
    expect(criuVerdict('4.1.1')).toMatchObject({ usable: false, reason: expect.stringMatching(/AF_INET/) });
    expect(criuVerdict('4.2.1')).toEqual({ usable: true });
    expect(criuVerdict('5.0')).toEqual({ usable: true });
    expect(parseCriuVersion('Version: 4.2.1\nGitID: v4.2.1\n')).toBe('4.2.1');
  });

  describe('probe of an installed criu', () => {
    const saved = process.env.SANDBENCH_CRIU_PREFIX;
    let dir = '';
    afterEach(() => {
      if (saved === undefined) delete process.env.SANDBENCH_CRIU_PREFIX;
      else process.env.SANDBENCH_CRIU_PREFIX = saved;
      rmSync(dir, { recursive: true, force: true });
    });

    it('reports a 3.17 binary as refused, and doctor says why', async () => {
      dir = mkdtempSync(join(tmpdir(), 'criu-probe-'));
      mkdirSync(join(dir, 'sbin'));
      writeFileSync(join(dir, 'sbin', 'criu'), '#!/bin/sh\necho "Version: 3.17.1"\n');
      chmodSync(join(dir, 'sbin', 'criu'), 0o755);
      process.env.SANDBENCH_CRIU_PREFIX = dir;
      const probe = await probeCriu();
      expect(probe).toMatchObject({ version: '3.17.1', usable: false, path: join(dir, 'sbin', 'criu') });
      expect(probe.pathEnv.startsWith(`${join(dir, 'sbin')}:`)).toBe(true);
      expect(criuDoctorLine(probe)).toMatch(/^-- +criu +3\.17\.1 .* refused: .*vDSO/);
    });
  });
});
