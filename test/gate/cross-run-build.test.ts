/**
 * Across runs, an arm whose build changed (a new pVisor CLI) is the intended difference: compare does
 * not refuse on the backend version it changed, and both compare and gate print what changed; an
 * unrelated environment difference (the kernel) still refuses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSyntheticBundle, syntheticEnvironment } from '../reports/synthetic-bundle.ts';
import { runCli } from '../reports/run-cli.ts';

function environment(pvisor: string, sha: string, kernel?: string) {
  const env = syntheticEnvironment({ kernel });
  return {
    ...env,
    backends: { ...env.backends, pvisor: { available: true, version: pvisor, details: {}, image_digest: env.image.digest, image: null } },
    fingerprint: { ...env.fingerprint, backend_versions: { ...env.fingerprint.backend_versions, pvisor } },
    arms: { pvisor: { backend: 'pvisor', variant: null, build: { build_pvisor: `/opt/${pvisor.replace(' ', '-')}`, build_pvisor_sha256: sha }, image_digest: env.image.digest, image: null } },
  };
}
const out = mkdtempSync(join(tmpdir(), 'sandbench-cross-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const bundle = (env: ReturnType<typeof environment>, seed: number) => makeSyntheticBundle({ arms: [{ backend: 'pvisor', medians: { completion_ms: 100 } }], blocks: 30, seed, runId: `run-${seed}`, environment: env });

describe('cross-run: a changed build is intended', () => {
  const base = bundle(environment('pvisor 0.3.1', 'sha256:aaaa'), 1);
  const next = bundle(environment('pvisor 0.4.0', 'sha256:bbbb'), 2);
  const otherKernel = bundle(environment('pvisor 0.4.0', 'sha256:bbbb', '6.9.0-other'), 3);

  it('compare: no refusal, the build change and the intended version difference are printed', async () => {
    const result = await runCli(['compare', base, next, '--metric', 'completion_ms', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('note: backend pvisor differs as intended (an arm carries a build): baseline pvisor 0.3.1');
    expect(result.stdout).toContain('note: arm pvisor build changed between the runs (the intended difference): pvisor: /opt/pvisor-0.3.1 (sha256:aaaa…) → /opt/pvisor-0.4.0 (sha256:bbbb…)');
  });

  it('gate: judged (not invalid on the environment) and says what changed; a kernel difference still refuses', async () => {
    const gate = await runCli(['gate', base, next, '--metric', 'completion_ms']);
    expect(gate.code, gate.stdout).not.toBe(3);
    expect(gate.stdout).toContain('build: arm pvisor build changed between the runs');
    const refused = await runCli(['gate', base, otherKernel, '--metric', 'completion_ms']);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toMatch(/environment differs on kernel/);
    expect(refused.stdout).not.toMatch(/environment differs on backend pvisor/);
  });
});
