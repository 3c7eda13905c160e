import { describe, expect, it } from 'vitest';
import { podmanInfoFailure } from '../../executors/podman.ts';

// Podman exits 0 on the SIGTERM of a timeout, so a hung `podman info` once reached JSON.parse('') and the
// probe "crashed" instead of saying what was wrong (quick campaign of 2026-12-01, a libpod lock held by a dead client).
describe('podmanInfoFailure', () => {
  it('names a timeout even when podman exited 0 on the SIGTERM', () => {
    const failure = podmanInfoFailure({ timedOut: true, exitCode: 0, stdout: '', stderr: '' });
    expect(failure?.reason).toMatch(/did not answer within 60 s/);
    expect(failure?.fix).toMatch(/podman system renumber/);
  });

  it('reports a nonzero exit with the first stderr line', () => {
    expect(podmanInfoFailure({ timedOut: false, exitCode: 125, stdout: '', stderr: 'Error: bad storage\nmore' })?.reason).toBe('podman info failed: Error: bad storage');
  });

  it('refuses an empty answer with exit 0', () => {
    expect(podmanInfoFailure({ timedOut: false, exitCode: 0, stdout: '  \n', stderr: '' })?.reason).toBe('podman info exited 0 with no output');
  });

  it('accepts a JSON answer', () => {
    expect(podmanInfoFailure({ timedOut: false, exitCode: 0, stdout: '{"host":{}}', stderr: '' })).toBeNull();
  });
});
