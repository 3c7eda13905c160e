/**
 * Build identity end to end without processes: probe details → environment.json (`arms`, backend
 * entries without build_* keys) → what compare/gate print, and a backend whose arms carry builds is
 * the intended difference, not "environment differs". Plus the podman argv and the sha256 details.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildBinaryDetails, splitBuildDetails } from '../../harness/provenance/build-identity.ts';
import { buildEnvironment, schedulingFacts } from '../../harness/provenance/environment.ts';
import { armBuildFacts, buildDifferences, crossRunBuildLines, interleavedBuildLines, separateIntended } from '../../reports/bundle/arm-builds.ts';
import { containerRunArgv } from '../../executors/container-common.ts';
import { dockerRuntimeName } from '../../executors/docker-runtime.ts';
import type { TaskImage } from '../../harness/image/task-image.ts';

const work = mkdtempSync(join(tmpdir(), 'sandbench-arm-builds-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const runtime = join(work, 'runc-new');
writeFileSync(runtime, '#!/bin/sh\necho "runc version 9.9-test"\n');
chmodSync(runtime, 0o755);
const sha = `sha256:${createHash('sha256').update('#!/bin/sh\necho "runc version 9.9-test"\n').digest('hex')}`;
const image: TaskImage = { digest: 'sha256:run', dir: '/i', tarPath: '/i/rootfs.tar', rootfsDir: '/i/rootfs', inputs: { suite: 'bookworm', mirror: 'm', packages: [], sourceDateEpoch: 1, builderScriptSha256: 'x' } };

describe('build identity', () => {
  it('probe details: path, sha256 of the file, --version of a tool (not of a wrapper)', async () => {
    expect(await buildBinaryDetails({ runtime })).toEqual({ build_runtime: runtime, build_runtime_sha256: sha, build_runtime_version: 'runc version 9.9-test' });
    expect(await buildBinaryDetails({ wrapper: runtime })).toEqual({ build_wrapper: runtime, build_wrapper_sha256: sha });
    expect(splitBuildDetails({ a: '1', build_x: '2' })).toEqual({ backend: { a: '1' }, build: { build_x: '2' } });
  });

  it('environment.json: per-arm builds, backend entries and fingerprint without them', async () => {
    const probe = (details: Record<string, string>, version = 'podman 4.3.1') => ({ backend: 'podman' as const, available: true, version, details: { runc: 'runc 1.1.5', ...details } });
    const old = probe({ build_runtime: '/usr/sbin/runc', build_runtime_sha256: 'sha256:aa' });
    const next = probe({ build_runtime: runtime, build_runtime_sha256: sha });
    const env = await buildEnvironment(image, [old, next], {}, [
      { label: 'podman:old', backend: 'podman', variant: 'old', probe: old },
      { label: 'podman:new', backend: 'podman', variant: 'new', probe: next, image: { ...image, digest: 'sha256:own' } },
    ]);
    expect(env.backends.podman!.details).toEqual({ runc: 'runc 1.1.5' });
    expect(env.fingerprint.backend_versions).toEqual({ podman: 'podman 4.3.1' });
    expect(env.arms!['podman:new']).toEqual({ backend: 'podman', variant: 'new', build: { build_runtime: runtime, build_runtime_sha256: sha }, image_digest: 'sha256:own', image: null });
    const bundle = { environment: env as unknown as Record<string, unknown>, resolved: {} as never };
    expect(armBuildFacts(bundle, 'podman:old')).toEqual({ binaries: { runtime: { path: '/usr/sbin/runc', sha256: 'sha256:aa', version: null } }, image: null });
    expect(armBuildFacts(bundle, 'podman:new')!.image).toBe('sha256:own');
    const lines = interleavedBuildLines(bundle, 'podman:old', 'podman:new');
    expect(lines[0]).toBe('baseline arm podman:old: runtime /usr/sbin/runc (sha256:aa…)');
    expect(lines[2]).toMatch(new RegExp(`^the arms differ in build: runtime: /usr/sbin/runc \\(sha256:aa…\\) → ${runtime} \\(sha256:[0-9a-f]{12}…\\); image: the run image → sha256:own…$`));
  });

  it('same sha256 at two paths is an A/A pair; no build on either side prints nothing', () => {
    const a = { binaries: { wrapper: { path: '/a', sha256: 'sha256:1', version: null } }, image: null };
    const b = { binaries: { wrapper: { path: '/b', sha256: 'sha256:1', version: null } }, image: null };
    expect(buildDifferences(a, b)).toEqual(['wrapper: /a → /b, byte-identical (same sha256: an A/A pair)']);
    expect(buildDifferences(a, null)).toEqual(['wrapper: /a → backend default']);
    expect(interleavedBuildLines({ environment: {}, resolved: {} as never }, 'x', 'y')).toEqual([]);
  });

  it('cross-run: a backend version change on an arm with a build is intended, other differences stay', () => {
    const env = (path: string, sha256: string) => ({ image: { digest: 'sha256:run' }, arms: { pvisor: { backend: 'pvisor', variant: null, build: { build_pvisor: path, build_pvisor_sha256: sha256 }, image_digest: 'sha256:run' } } });
    const base = { environment: env('/opt/pvisor-0.3', 'sha256:03') };
    const cand = { environment: env('/opt/pvisor-0.4', 'sha256:04') };
    const check = { differences: [{ key: 'backend pvisor', baseline: 'pvisor 0.3', candidate: 'pvisor 0.4' }, { key: 'kernel', baseline: 'a', candidate: 'b' }], unverified: [] };
    const split = separateIntended(check, base, cand, ['pvisor']);
    expect(split.intended.map((d) => d.key)).toEqual(['backend pvisor']);
    expect(split.differences.map((d) => d.key)).toEqual(['kernel']);
    expect(crossRunBuildLines(base, cand, ['pvisor'])).toEqual(['arm pvisor build changed between the runs (the intended difference): pvisor: /opt/pvisor-0.3 (sha256:03…) → /opt/pvisor-0.4 (sha256:04…)']);
    expect(separateIntended(check, { environment: {} }, { environment: {} }, ['pvisor']).differences).toHaveLength(2);
  });

  it('podman gets --runtime <build.runtime>, runc by default', () => {
    const input = { kind: 'podman' as const, name: 'n', runId: 'r', trialId: 't', imageTag: 'i', workspaceHostPath: '/w', task: { argv: ['true'], env: {}, stdin: 'none' as const }, controls: { cpus: null, memoryMiB: null }, budget: null };
    expect(containerRunArgv({ ...input, runtime }).runArgs.join(' ')).toContain(`--runtime ${runtime} --ulimit`);
    expect(containerRunArgv(input).runArgs.join(' ')).toContain('--runtime runc --ulimit');
  });

  it('docker gets --runtime <registered name> only with a build.runtime; the name is derived from the path', () => {
    const input = { kind: 'docker' as const, name: 'n', runId: 'r', trialId: 't', imageTag: 'i', workspaceHostPath: '/w', task: { argv: ['true'], env: {}, stdin: 'none' as const }, controls: { cpus: null, memoryMiB: null }, budget: null };
    const name = dockerRuntimeName('/opt/runc-new');
    expect(name).toMatch(/^sandbench-[0-9a-f]{12}$/);
    expect(dockerRuntimeName('/opt/runc-new')).toBe(name);
    expect(dockerRuntimeName('/usr/sbin/runc')).not.toBe(name);
    expect(containerRunArgv({ ...input, runtime: name }).runArgs.join(' ')).toContain(`--runtime ${name} --ulimit`);
    expect(containerRunArgv(input).runArgs).not.toContain('--runtime');
  });

  it('scheduling facts from /proc/self/stat', () => {
    // Fields 3..44 after the parenthesised comm (which may itself hold ')'): nice is 19, rt_priority 40, policy 41.
    const fields = Array.from({ length: 42 }, (_, i) => (i + 3 === 19 ? '-5' : i + 3 === 40 ? '10' : i + 3 === 41 ? '1' : '0'));
    const stat = `123 (node (x) y) ${fields.join(' ')}`;
    expect(schedulingFacts(stat)).toEqual({ policy: 'SCHED_FIFO', rt_priority: 10, nice: -5 });
    expect(schedulingFacts()!.policy).toMatch(/^SCHED_/);
  });
});
