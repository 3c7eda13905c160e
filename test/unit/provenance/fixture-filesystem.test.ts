/**
 * The bench names the filesystem under its fixture root beside every CPU figure
 * (harness/provenance/fixture-filesystem.ts): the mount must be the longest one holding the path, not the first.
 */
import { describe, expect, it } from 'vitest';
import { describeFilesystem, fixtureFilesystem } from '../../../harness/provenance/fixture-filesystem.ts';

const MOUNTS = [
  '/dev/vda / ext4 rw,relatime 0 0',
  'tmpfs /dev/shm tmpfs rw,relatime 0 0',
  'tmpfs /var/tmp/fast tmpfs rw 0 0',
  '/dev/vdb /var tmpfs rw 0 0',
  '',
].join('\n');

describe('fixtureFilesystem', () => {
  it('picks the longest mount point that holds the path', () => {
    expect(fixtureFilesystem('/var/tmp/fast/sandbench-fixtures-0', MOUNTS)).toMatchObject({ type: 'tmpfs', mountPoint: '/var/tmp/fast', journal: null });
    expect(fixtureFilesystem('/dev/shm/x', MOUNTS)).toMatchObject({ type: 'tmpfs', mountPoint: '/dev/shm' });
    expect(fixtureFilesystem('/srv/fixtures', MOUNTS)).toMatchObject({ type: 'ext4', mountPoint: '/', source: '/dev/vda' });
  });

  it('does not take a mount point that is only a string prefix of the path', () => {
    expect(fixtureFilesystem('/dev/shmother/x', MOUNTS).mountPoint).toBe('/');
  });

  it('says whether an ext4 root keeps a journal, and nothing about journals elsewhere', () => {
    const ext4 = fixtureFilesystem('/srv', MOUNTS);
    expect(typeof ext4.journal).toBe('boolean');
    expect(describeFilesystem(ext4)).toMatch(/^ext4, (no )?journal \(\/dev\/vda on \/\)$/);
    expect(describeFilesystem(fixtureFilesystem('/dev/shm', MOUNTS))).toBe('tmpfs (tmpfs on /dev/shm)');
  });
});
