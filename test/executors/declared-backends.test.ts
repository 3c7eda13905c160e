/**
 * Backends declared in a spec, with no TypeScript: a command template (systemd-nspawn, real) and a
 * plugin module (test/fixtures/backends/). Bad declarations fail with the spec field named, at load
 * or at probe, never as a silent task failure.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogForSpec } from '../../executors/declared-backends.ts';
import { executorOf } from '../../executors/registry.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { UserError } from '../../harness/errors.ts';
import { resolveGivenSpec } from '../../harness/spec/given-spec.ts';
import { SPEC_KINDS } from '../../experiments/registry.ts';
import type { Executor } from '../../harness/contracts/executor.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { makeTestRun, makeTrial, runOne, sh, type TestRun } from '../support/trial-fixture.ts';
import { openConformanceRun } from '../../executors/conformance/conformance-run.ts';
import { checkBackend, conforms } from '../../executors/conformance/check-backend.ts';
import { listProcesses } from '../../harness/controls/proc-tree.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/backends');
const NSPAWN_SPEC = resolve(import.meta.dirname, '../../experiments/specs/backends/nspawn-shell-ready.yaml');
const FIREJAIL_SPEC = resolve(import.meta.dirname, '../../experiments/specs/backends/firejail-shell-ready.yaml');

const specWith = (backends: Record<string, unknown>, backend: string) => ({ name: 'x', experiment: 'shell-ready', warmups: 0, trials: 1, seed: 1, timeout: '10s', arms: [{ backend }], backends });
const template = (launch: string[], probe = ['sh', '-c', 'echo fake 1.0']) => ({ template: { probe, launch, staging: 'copy' }, traits: { network_isolated: false } });

async function executorFor(spec: ReturnType<typeof parseSpec>, backend: string): Promise<Executor> {
  const catalog = await catalogForSpec(spec);
  return executorOf(catalog.get(backend)!, null);
}

describe('declared backend errors name the spec field', () => {
  it('an unknown placeholder is refused at load, with the placeholders it could be', () => {
    expect(() => parseSpec(specWith({ box: template(['sh', '-c', 'exec "$@"', '{rootfz}', '{argv}']) }, 'box'))).toThrow(/backends\.box\.template\.launch\[3\]: unknown placeholder \{rootfz\}.*expected one of \{rootfs\}/);
    // {socket} exists only inside `service`: in launch it is refused at load, not at the first trial.
    expect(() => parseSpec(specWith({ box: template(['sh', '-c', 'exec "$@"', '{socket}', '{argv}']) }, 'box'))).toThrow(/backends\.box\.template\.launch\[3\]: unknown placeholder \{socket\}/);
  });

  it('a list placeholder inside a word, a launch without {argv}, and a built-in name are refused', () => {
    expect(() => parseSpec(specWith({ box: template(['sh', '-c', 'x{argv}']) }, 'box'))).toThrow(/\{argv\} stands for several words/);
    expect(() => parseSpec(specWith({ box: template(['sh', '-c', 'true']) }, 'box'))).toThrow(/backends\.box\.template\.launch: never runs \{argv\}/);
    expect(() => parseSpec(specWith({ staged: template(['{argv}']) }, 'staged'))).toThrow(/backends\.staged: "staged" is a built-in backend/);
  });

  it('a template naming a missing binary probes unavailable with the field and the fix', async () => {
    const spec = parseSpec(specWith({ box: template(['no-such-sandbox-cli', '{argv}'], ['no-such-sandbox-cli', '--version']) }, 'box'));
    const probe = await (await executorFor(spec, 'box')).probe();
    expect(probe.available).toBe(false);
    expect(probe.reason).toMatch(/backends\.box\.template\.probe: "no-such-sandbox-cli" is not installed or not on PATH/);
    expect(probe.fix).toMatch(/absolute path/);
  });

  it('a module that exports no descriptor, or does not exist, fails naming backends.<name>.module', async () => {
    const spec = parseSpec(specWith({ mine: { module: join(FIXTURES, 'not-a-backend.mjs') } }, 'mine'));
    await expect(catalogForSpec(spec)).rejects.toThrow(UserError);
    await expect(catalogForSpec(spec)).rejects.toThrow(/backends\.mine\.module: .*not-a-backend\.mjs exports no descriptor \(found: something\)/);
    const dir = tempDir('sandbench-declared-');
    const file = join(dir, 'spec.yaml');
    writeFileSync(file, `name: x\nexperiment: shell-ready\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 10s\narms: [{backend: mine}]\nbackends:\n  mine: {module: ./missing.mjs}\n`);
    expect(() => resolveGivenSpec(file, {}, SPEC_KINDS)).toThrow(/backends\.mine\.module: .*missing\.mjs \(from "\.\/missing\.mjs", relative to the spec file\) does not exist/);
  });
});

describe('declared backends run real trials', () => {
  let test: TestRun;
  beforeAll(async () => {
    test = await makeTestRun('declared');
  }, 300_000);
  afterAll(async () => test?.dispose(), 60_000);

  it('a launch that never prints the task output is killed at ready_timeout, setup_failed naming template.launch, nothing left running', async () => {
    // The silent child holds the trial's directory in its argv, so a survivor of the kill is findable.
    const launch = ['sh', '-c', 'python3 -c "import time; time.sleep(30)" "$0"; :', '{trial_dir}', '{argv}'];
    const spec = parseSpec(specWith({ mute: { template: { probe: ['true'], launch, staging: 'copy', ready_timeout: '1s' }, traits: { network_isolated: false } } }, 'mute'));
    const executor = await executorFor(spec, 'mute');
    await executor.prepare(test.run);
    const trial = makeTrial(test);
    const holding = () => listProcesses().filter((proc) => proc.cmdline.includes(trial.trialDir)).map((proc) => `${proc.comm}[${proc.pid}]`);
    let whileSilent: string[] = [];
    const out = await runOne(executor, trial, sh('echo REFERENCE_READY'), async () => {
      await new Promise((resolve) => setTimeout(resolve, 500));
      whileSilent = holding();
    });
    expect(whileSilent.length).toBeGreaterThan(0);
    expect(out.exit.infraFailure?.category).toBe('setup_failed');
    expect(out.exit.infraFailure?.reason).toMatch(/backends\.mute\.template\.launch printed nothing within ready_timeout/);
    expect(Number(out.exit.tExitNs - out.running.tSpawnNs) / 1e6).toBeLessThan(10_000);
    expect(holding()).toEqual([]);
  }, 60_000);

  it('systemd-nspawn from the shipped spec alone: marker, exit code, staging and no network', async () => {
    const { spec } = resolveGivenSpec(NSPAWN_SPEC, {}, SPEC_KINDS);
    const executor = await executorFor(spec, 'nspawn');
    const probe = await executor.probe();
    expect(probe.available, probe.reason).toBe(true);
    expect(probe.details.template_binary_sha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    await executor.prepare(test.run);
    const before = treeDigest(test.baseline);
    const out = await runOne(executor, makeTrial(test), sh('echo REFERENCE_READY; pwd; echo new > made.txt; rm a.txt; python3 -c "import socket; socket.create_connection((\'127.0.0.1\', 22), timeout=2)" 2>/dev/null && echo NET || echo NONET; exit 3'));
    expect(out.stdout).toContain('REFERENCE_READY');
    expect(out.stdout).toContain('/workspace');
    expect(out.stdout).toContain('NONET');
    expect(out.exit.exitCode).toBe(3);
    expect(out.candidates.changed.sort()).toEqual(['a.txt (deleted)', 'made.txt']);
    expect(treeDigest(test.baseline)).toBe(before);
    expect(out.running.timing?.path).toBeDefined();
    await executor.teardown();
  }, 120_000);

  it('paths: host tells the task the host paths: workspace, service socket, tool layer (argv and env rewritten)', async () => {
    // A sandbox that shows the host's filesystem (firejail) cannot bind /workspace or /run/sandbench.
    // No sandbox here: the launch prints the {mounts} and {service} words, then runs {argv} on the host.
    const launch = ['/bin/sh', '-c', 'printf "%s\\n" "$1" "$2" >&2; shift 2; exec "$@"', 'sh', '{mounts}', '{service}', '{argv}'];
    const spec = parseSpec(specWith({ view: { template: { probe: ['true'], launch, staging: 'copy', paths: 'host', mount: ['M={target}'], service: ['S={target}'] }, traits: { network_isolated: false } } }, 'view'));
    const executor = await executorFor(spec, 'view');
    await executor.prepare(test.run);
    const tools = join(test.root, 'tools');
    mkdirSync(tools);
    const socketPath = join(test.root, 'svc.sock');
    const server = createServer((socket) => socket.end());
    await new Promise<void>((done) => server.listen(socketPath, done));
    try {
      const trial = makeTrial(test);
      const task = { ...sh('pwd; echo "$SANDBENCH_SERVICE_SOCKET"; echo "$0"; echo "$TOOL"; echo REFERENCE_READY'), env: { TOOL: '/run/sandbench/tools/bin' } };
      task.argv.push('/run/sandbench/tools/run.sh');
      const out = await runOne(executor, trial, { ...task, mounts: [{ source: tools, target: '/run/sandbench/tools', contentKey: 'k' }], service: { name: 'svc', socketPath } });
      expect(out.stdout).toEqual([join(trial.trialDir, 'workspace'), socketPath, `${tools}/run.sh`, `${tools}/bin`, 'REFERENCE_READY']);
      expect(out.stderr).toEqual([`M=${tools}`, `S=${socketPath}`]);
    } finally {
      server.close();
    }
  }, 60_000);

  it('a plugin module passes the same trial', async () => {
    const spec = parseSpec(specWith({ mine: { module: join(FIXTURES, 'unshare-backend.mjs') } }, 'mine'));
    const catalog = await catalogForSpec(spec);
    expect(catalog.get('mine')!.traits.networkIsolated).toBe(true);
    const executor = executorOf(catalog.get('mine')!, null);
    expect((await executor.probe()).available).toBe(true);
    await executor.prepare(test.run);
    const out = await runOne(executor, makeTrial(test), sh('echo REFERENCE_READY; cat a.txt; exit 4'));
    expect(out.stdout).toEqual(['REFERENCE_READY', 'hello']);
    expect(out.exit.exitCode).toBe(4);
  }, 60_000);
});

describe('a declared template that writes into the baseline fails conformance, naming the property', () => {
  it('staging fails with the baseline digest change, and the run leaves nothing behind', async () => {
    // A typical slip: the sandbox binds {baseline} where it should bind {workspace} (here through a
    // private mount namespace over the staged copy), so the task writes the baseline itself.
    const launch = ['unshare', '-m', '--propagation', 'private', 'sh', '-c', 'mount --bind "$0" "$1" && shift && exec "$@"', '{baseline}', '{workspace}', '{argv}'];
    const spec = parseSpec(specWith({ leaky: { template: { probe: ['true'], launch, staging: 'copy', paths: 'host' }, traits: { network_isolated: false, isolates_filesystem: false } } }, 'leaky'));
    const run = await openConformanceRun({ scratchRoot: tempDir('sandbench-declared-baseline-') });
    try {
      const report = await checkBackend(await executorFor(spec, 'leaky'), run, { only: ['ready-and-exit', 'staging'] });
      expect(report.results.find((p) => p.property === 'ready-and-exit')?.status).toBe('pass');
      expect(report.results.find((p) => p.property === 'staging')).toMatchObject({ status: 'fail', reason: expect.stringMatching(/the baseline workspace changed while the task ran/) });
      expect(conforms(report)).toBe(false);
    } finally {
      expect(await run.dispose()).toEqual([]);
    }
  }, 60_000);
});

describe('declared backends pass sandbench conformance', () => {
  // The two acceptance sandboxes without TypeScript of their own: systemd-nspawn from the shipped
  // YAML, and the plain-JS plugin module. Every property must pass (none is n/a: both claim a
  // network boundary, and both hand the task its service socket).
  const cases: [string, () => Promise<Executor>][] = [
    ['nspawn (spec-declared template)', async () => executorFor(resolveGivenSpec(NSPAWN_SPEC, {}, SPEC_KINDS).spec, 'nspawn')],
    // firejail hides /var/tmp and /tmp unless told (--keep-var-tmp, --whitelist) and cannot bind to
    // the sandbox paths: its shipped recipe runs with `paths: host`.
    ['firejail (spec-declared template, paths: host)', async () => executorFor(resolveGivenSpec(FIREJAIL_SPEC, {}, SPEC_KINDS).spec, 'firejail')],
    ['unshare-fixture (plugin module)', async () => executorFor(parseSpec(specWith({ mine: { module: join(FIXTURES, 'unshare-backend.mjs') } }, 'mine')), 'mine')],
  ];
  for (const [label, make] of cases) {
    it(label, async () => {
      const run = await openConformanceRun({ scratchRoot: tempDir('sandbench-declared-conformance-') });
      try {
        const report = await checkBackend(await make(), run);
        const failed = report.results.filter((p) => p.status === 'fail').map((p) => `${p.property}: ${p.reason}`);
        expect(report.setupError).toBeNull();
        expect(failed).toEqual([]);
        expect(report.results.filter((p) => p.status === 'pass').length).toBeGreaterThanOrEqual(7);
        expect(conforms(report)).toBe(true);
      } finally {
        expect(await run.dispose()).toEqual([]);
      }
    }, 240_000);
  }
});
