/**
 * `sandbench conformance` end to end, as a user runs it (node bin/sandbench.mjs): the built-in host
 * and staged backends pass every property they claim; a spec-declared template whose launch never
 * runs the task fails the ready property naming the template field, exit 1; bad input exits 2. Each
 * run gets its own fixture root (SANDBENCH_FIXTURES), which must be empty afterwards, and leaves no
 * process, budget cgroup or live run lock behind.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConformanceJsonSchema } from '../../executors/conformance/conformance-json.ts';
import { PROPERTY_NAMES } from '../../executors/conformance/properties.ts';
import { listProcesses } from '../../harness/controls/proc-tree.ts';
import { liveRunIdsOnMachine } from '../../harness/run/run-lock.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const LINE = /^(pass|FAIL|n\/a)\s+(\S+)\s+(\S+)\s+(.+)$/;

/** Run the command with a fresh fixture root; returns the result, the run id it logged and that root. */
async function conformance(args: string[]) {
  const fixtures = tempDir('sandbench-conformance-fixtures-');
  const result = await sandbench(['conformance', ...args], { env: { SANDBENCH_FIXTURES: fixtures } });
  const runId = /conformance run (\S+):/.exec(result.stderr)?.[1] ?? null;
  return { ...result, runId, fixtures };
}

/** Nothing of the run is left: its scratch, its budget cgroups, its lock, any process naming `token`. */
function expectNothingLeft(run: { runId: string | null; fixtures: string }, token?: string) {
  expect(run.runId).not.toBeNull();
  expect(readdirSync(run.fixtures)).toEqual([]);
  const cgroups = readdirSync('/sys/fs/cgroup').flatMap((hierarchy) => {
    try {
      return readdirSync(join('/sys/fs/cgroup', hierarchy)).filter((name) => name.includes(run.runId!));
    } catch {
      return [];
    }
  });
  expect(cgroups).toEqual([]);
  expect(liveRunIdsOnMachine().has(run.runId!)).toBe(false);
  const holders = listProcesses().filter((p) => p.pid !== process.pid && (p.cmdline.includes(run.runId!) || (token !== undefined && p.cmdline.includes(token))));
  expect(holders.map((p) => `${p.comm}[${p.pid}] ${p.cmdline}`)).toEqual([]);
}

describe('sandbench conformance', () => {
  it('host and staged: one line per property, all pass (host isolation n/a by its traits), exit 0, nothing left', async () => {
    const run = await conformance(['--backend', 'host', '--backend', 'staged']);
    expect(run.code, run.stderr).toBe(0);
    const rows = run.stdout.trim().split('\n').map((line) => LINE.exec(line));
    expect(rows.every(Boolean), run.stdout).toBe(true);
    for (const backend of ['host', 'staged']) {
      const mine = rows.filter((row) => row![2] === backend);
      expect(mine.map((row) => row![3])).toEqual([...PROPERTY_NAMES]);
    }
    const statusOf = (backend: string, property: string) => rows.find((row) => row![2] === backend && row![3] === property)![1];
    expect(statusOf('host', 'isolation')).toBe('n/a');
    expect(statusOf('staged', 'isolation')).toBe('pass');
    expect(rows.filter((row) => row![1] === 'FAIL')).toEqual([]);
    expect(run.stdout).toMatch(/^pass\s+staged\s+staging\s+claims staging: baseline unchanged/m);
    expect(run.stdout).toMatch(/^pass\s+host\s+timing-path\s+all \d+ launch\(es\) timed by the (launcher|node) path, as the probe states/m);
    expectNothingLeft(run);
  }, 240_000);

  it('--json: one document its schema accepts, with the same verdicts', async () => {
    const run = await conformance(['--backend', 'host', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const json = ConformanceJsonSchema.parse(JSON.parse(run.stdout));
    expect(json).toMatchObject({ command: 'conformance', run_id: run.runId, passed: true });
    expect(json.backends).toHaveLength(1);
    expect(json.backends[0]!.results.map((r) => [r.property, r.status])).toEqual(PROPERTY_NAMES.map((p) => [p, p === 'isolation' ? 'not-applicable' : 'pass']));
    expectNothingLeft(run);
  }, 240_000);

  it('a spec-declared template whose launch never runs the task fails ready-and-exit naming it, exit 1, nothing left', async () => {
    const dir = tempDir('sandbench-conformance-spec-');
    const token = `sbconftest${process.pid}x${Date.now()}`;
    const spec = join(dir, 'mute.yaml');
    writeFileSync(
      spec,
      [
        'name: mute-template',
        'experiment: shell-ready',
        'warmups: 0',
        'trials: 1',
        'seed: 1',
        'timeout: 10s',
        'arms: [{backend: mute}]',
        'backends:',
        '  mute:',
        '    template:',
        "      probe: [sh, -c, 'echo mute 1.0']",
        // The launch prints nothing and never runs the task; the token names its processes.
        `      launch: [sh, -c, 'sleep 30; :', ${token}, '{argv}']`,
        '    traits: {network_isolated: true}',
        '',
      ].join('\n'),
    );
    const started = Date.now();
    const run = await conformance(['--spec', spec, '--timeout', '5s']);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^FAIL\s+mute\s+ready-and-exit\s+no REFERENCE_READY line reached the harness \(.*timed out.*backends\.mute\.template\.launch printed nothing/);
    expect(lines.slice(1)).toHaveLength(PROPERTY_NAMES.length - 1);
    for (const line of lines.slice(1)) expect(line).toMatch(/^FAIL\s+mute\s+\S+\s+not checked: ready-and-exit saw no REFERENCE_READY/);
    // Only the backend the spec declares and its arms use: no built-in ran.
    expect(lines.every((line) => LINE.exec(line)?.[2] === 'mute')).toBe(true);
    expect(Date.now() - started).toBeLessThan(60_000);
    expectNothingLeft(run, token);
  }, 120_000);

  it('a declared backend that is not installed: one FAIL probe line with the reason and fix, exit 1', async () => {
    const dir = tempDir('sandbench-conformance-spec-');
    const spec = join(dir, 'absent.yaml');
    writeFileSync(
      spec,
      ['name: absent', 'experiment: shell-ready', 'warmups: 0', 'trials: 1', 'seed: 1', 'timeout: 10s', 'arms: [{backend: host}, {backend: absent}]', 'backends:', '  absent:', '    template:', '      probe: [no-such-sandbox-cli, --version]', "      launch: [no-such-sandbox-cli, '{argv}']", '    traits: {network_isolated: true}', ''].join('\n'),
    );
    const run = await conformance(['--spec', spec, '--backend', 'absent']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout.trim()).toMatch(/^FAIL\s+absent\s+probe\s+unavailable: backends\.absent\.template\.probe: "no-such-sandbox-cli" is not installed or not on PATH — fix: install it/);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    expectNothingLeft(run);
  }, 120_000);

  it('bad input exits 2 with one line: an unknown backend, a bad timeout, a missing spec', async () => {
    const unknown = await sandbench(['conformance', '--backend', 'no-such-box']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--backend no-such-box: no such backend; expected one of host, staged/);
    const timeout = await sandbench(['conformance', '--backend', 'host', '--timeout', 'soon']);
    expect(timeout.code).toBe(2);
    expect(timeout.stderr).toMatch(/--timeout soon: expected a positive duration/);
    const missing = await sandbench(['conformance', '--spec', '/nonexistent/spec.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/\/nonexistent\/spec\.yaml: cannot read spec/);
  }, 120_000);
});
