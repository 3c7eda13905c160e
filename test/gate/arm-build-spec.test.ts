/**
 * arms[i].build (harness/spec/arm-build.ts): the spec accepts a build per arm, refuses a field the
 * arm's backend would ignore, and at run start a missing or unusable binary is a UserError naming the
 * spec file, the arm index, the field and the fix; relative paths resolve against the spec's folder.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../experiments/registry.ts';
import { UserError } from '../../harness/errors.ts';
import { ArmSpecSchema } from '../../harness/spec/schema.ts';
import { checkBuildsUnchanged, resolveArmBuilds } from '../../harness/spec/arm-build-check.ts';
import { fileSha256 } from '../../harness/provenance/build-identity.ts';
import { armBuilds } from '../../harness/spec/arm-builds.ts';
import { runCli } from '../reports/run-cli.ts';

const work = mkdtempSync(join(tmpdir(), 'sandbench-arm-build-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const tool = join(work, 'runc-new');
writeFileSync(tool, '#!/bin/sh\nexec "$@"\n');
chmodSync(tool, 0o755);
const plain = join(work, 'not-executable');
writeFileSync(plain, 'x');

describe('ArmSpecSchema build', () => {
  it('accepts each field on the backends that honour it', () => {
    expect(ArmSpecSchema.parse({ backend: 'podman', variant: 'new', build: { runtime: '/opt/runc-new' } }).build).toEqual({ runtime: '/opt/runc-new' });
    expect(ArmSpecSchema.parse({ backend: 'staged', build: { wrapper: './w', image: { packages: ['busybox'] } } }).build?.image).toEqual({ packages: ['busybox'] });
    expect(ArmSpecSchema.parse({ backend: 'pvisor', build: { pvisor: '/x/pvisor', image: { tar: 'r.tar' } } }).build?.pvisor).toBe('/x/pvisor');
  });

  it('refuses a field the backend would silently ignore, an empty build and unknown keys, naming the field', () => {
    // The loader checks build fields against the backend's traits (buildFields), built in or declared.
    const wrong = () => parseSpec({ name: 'x', experiment: 'shell-ready', warmups: 0, trials: 1, seed: 1, timeout: '10s', arms: [{ backend: 'staged', build: { runtime: '/usr/sbin/runc' } }] });
    expect(wrong).toThrow(/arms\.0\.build\.runtime: build\.runtime does not apply to the staged backend \(it honours build\.wrapper\)/);
    expect(ArmSpecSchema.safeParse({ backend: 'host', build: {} }).error!.issues[0]!.message).toMatch(/empty build/);
    expect(ArmSpecSchema.safeParse({ backend: 'host', build: { wrappr: 'x' } }).success).toBe(false);
    expect(ArmSpecSchema.safeParse({ backend: 'host', build: { image: { packages: [], tar: 'x' } } }).success).toBe(false);
  });
});

describe('resolveArmBuilds (run start)', () => {
  const specFile = join(work, 'gate.yaml');

  it('resolves relative paths against the spec file and keeps absolute ones', () => {
    const arms = resolveArmBuilds(specFile, [{ backend: 'podman', variant: 'a', build: { runtime: './runc-new' } }, { backend: 'host', build: { wrapper: tool } }, { backend: 'host', variant: 'plain' }]);
    expect(arms[0]!.build!.runtime).toBe(tool);
    expect(arms[1]!.build!.wrapper).toBe(tool);
    expect(arms[2]!.build).toBeUndefined();
    expect([...armBuilds({ arms }).keys()]).toEqual(['podman:a', 'host']);
  });

  it('a runtime given by name is looked up on PATH and recorded resolved; an unknown name says where it looked', () => {
    const [arm] = resolveArmBuilds(specFile, [{ backend: 'podman', variant: 'sh', build: { runtime: 'sh' } }]);
    expect(arm!.build!.runtime).toMatch(/^\/(usr\/)?bin\/sh$/);
    expect(() => resolveArmBuilds(specFile, [{ backend: 'podman', build: { runtime: 'no-such-runtime-xyz' } }])).toThrow(/build\.runtime: .*no-such-runtime-xyz \(from "no-such-runtime-xyz": not found on PATH, nor relative to the spec file\) does not exist/);
  });

  it('a missing binary is a UserError naming the spec file, arm index, field and fix', () => {
    const call = () => resolveArmBuilds(specFile, [{ backend: 'host' }, { backend: 'podman', variant: 'new', build: { runtime: '/opt/runc-new' } }]);
    expect(call).toThrow(UserError);
    expect(call).toThrow(`${specFile}: arms[1].build.runtime: /opt/runc-new does not exist — give the OCI runtime by name (looked up on PATH, e.g. crun) or by path`);
    expect(call).toThrow(/or remove build\.runtime from arm 1 \(podman:new\)/);
  });

  it('a non-executable binary, a directory and a missing image tar are refused too', () => {
    expect(() => resolveArmBuilds(specFile, [{ backend: 'staged', build: { wrapper: plain } }])).toThrow(/arms\[0\]\.build\.wrapper: .*not-executable is not executable \(chmod \+x it\)/);
    expect(() => resolveArmBuilds(specFile, [{ backend: 'pvisor', build: { pvisor: work } }])).toThrow(/is not a regular file/);
    expect(() => resolveArmBuilds(specFile, [{ backend: 'host', build: { image: { tar: 'rootfs.tar' } } }])).toThrow(new RegExp(`arms\\[0\\]\\.build\\.image\\.tar: ${work}/rootfs.tar \\(from "rootfs.tar", relative to the spec file\\) does not exist`));
  });

  it('sandbench run refuses before probing anything (exit 2, the same message)', async () => {
    const path = join(work, 'bad.yaml');
    writeFileSync(path, ['name: bad', 'experiment: shell-ready', 'arms:', '  - { backend: staged, variant: a, build: { wrapper: ./missing-wrapper } }', 'warmups: 0', 'trials: 1', 'seed: 1', 'timeout: 10s', ''].join('\n'));
    const result = await runCli(['run', path, '--out', join(work, 'never')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path}: arms[0].build.wrapper: ${work}/missing-wrapper (from "./missing-wrapper", relative to the spec file) does not exist`);
  });

  it('--resume refuses a build binary whose sha256 changed since the run started', () => {
    const arms = [{ backend: 'podman', variant: 'new', build: { runtime: tool } }];
    const env = (sha: string) => ({ arms: { 'podman:new': { build: { build_runtime: tool, build_runtime_sha256: sha } } } });
    expect(() => checkBuildsUnchanged(env(`sha256:${fileSha256(tool)}`), arms, fileSha256)).not.toThrow();
    expect(() => checkBuildsUnchanged(env('sha256:0000'), arms, fileSha256)).toThrow(/--resume: arm podman:new build.runtime .* changed since the run started \(sha256:0000 then, sha256:[0-9a-f]{64} now\)/);
    expect(() => checkBuildsUnchanged(null, arms, fileSha256)).not.toThrow();
  });
});
