/**
 * Interleaved A/B on real runs (host backend, `sandbench run` as a child process): three arms of one
 * run differ only in build.wrapper — a no-delay shim, a byte-identical copy of it (A/A) and a shim
 * that sleeps 2 ms before exec (test/fixtures/builds/delay-exec.c). The gate of the 2 ms arm against
 * the no-delay arm is a regression (exit 1); the A/A pair is never one; environment.json records
 * each arm's wrapper with its sha256 and the gate prints what differed (an A/A pair whose P50 the
 * gate refuses for separated clusters is accepted as not judged, never as a regression). The run goes under
 * SCHED_FIFO (`chrt -f 10`) where permitted, as the README's CI recipe does on a shared host: at a
 * load of 20+ on 2 cores half the plain launches of /bin/true wait ~10 ms for a CPU (separated
 * clusters), under chrt they take 0.9 ms ± 0.1.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../reports/run-cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE = join(ROOT, 'test/fixtures/builds/delay-exec.c');
const work = mkdtempSync(join(tmpdir(), 'sandbench-build-ab-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CLUSTERS = /separated clusters, so its P50 describes neither/;

/**
 * The gate of the 2 ms arm. Where the gate refuses the P50 because the sub-millisecond baseline split
 * into separated clusters (it did in one fresh-clone CI run), it is asked for the P90 its refusal
 * names, which 24 trials allow (P90 needs ≥ 20): the +2 ms shift moves every quantile, so a P90 gate
 * must still call it a regression. The refusal itself is pinned by the A/A pair below.
 */
async function gateSlow(out: string, baseline: string[]) {
  const argv = ['gate', out, ...baseline, '--candidate-arm', 'host:slow', '--metric', 'completion_ms', '--threshold', '50%'];
  const p50 = await runCli(argv);
  if (p50.code !== 3 || !CLUSTERS.test(p50.stdout)) return p50;
  return runCli([...argv, '--statistic', 'p90']);
}

describe('interleaved A/B of two builds in one run', () => {
  it('detects a +2 ms wrapper and passes (or leaves undecided) the byte-identical pair', async () => {
    await execa('gcc', ['-O2', '-DDELAY_US=0', '-o', join(work, 'shim'), SOURCE]);
    await execa('gcc', ['-O2', '-DDELAY_US=2000', '-o', join(work, 'shim-2ms'), SOURCE]);
    copyFileSync(join(work, 'shim'), join(work, 'shim-copy'));
    await execa('chmod', ['+x', join(work, 'shim-copy')]);
    const spec = join(work, 'ab.yaml');
    writeFileSync(spec, [
      'name: build-ab',
      'experiment: command',
      'arms:',
      '  - { backend: host, variant: base, build: { wrapper: ./shim } }',
      '  - { backend: host, variant: copy, build: { wrapper: ./shim-copy } }',
      '  - { backend: host, variant: slow, build: { wrapper: ./shim-2ms } }',
      'warmups: 1',
      'trials: 24',
      'seed: 3',
      'timeout: 30s',
      'task:',
      '  argv: ["/bin/true"]',
      '',
    ].join('\n'));
    const out = join(work, 'run');
    const realtime = (await execa('chrt', ['-f', '10', 'true'], { reject: false })).exitCode === 0;
    const argv = ['node', join(ROOT, 'bin/sandbench.mjs'), 'run', spec, '--out', out];
    await execa(realtime ? 'chrt' : argv[0]!, realtime ? ['-f', '10', ...argv] : argv.slice(1), { cwd: ROOT, timeout: 300_000 });

    const env = JSON.parse(readFileSync(join(out, 'environment.json'), 'utf8'));
    expect(env.arms['host:slow'].build.build_wrapper).toBe(join(work, 'shim-2ms'));
    expect(env.arms['host:base'].build.build_wrapper_sha256).toBe(env.arms['host:copy'].build.build_wrapper_sha256);
    expect(env.arms['host:base'].build.build_wrapper_sha256).not.toBe(env.arms['host:slow'].build.build_wrapper_sha256);
    expect(JSON.stringify(env.backends.host.details)).not.toContain('build_');
    if (realtime) expect(env.scheduling).toMatchObject({ policy: 'SCHED_FIFO', rt_priority: 10 });

    const slow = await gateSlow(out, ['--baseline-arm', 'host:base']);
    expect(slow.code, slow.stdout).toBe(1);
    expect(slow.stdout).toContain(`the arms differ in build: wrapper: ${join(work, 'shim')} (sha256:`);
    const same = await runCli(['gate', out, '--baseline-arm', 'host:base', '--candidate-arm', 'host:copy', '--metric', 'completion_ms', '--threshold', '50%']);
    // Never a regression. Undecided (2) or pass (0); or invalid (3) only because a P50 of separated
    // clusters describes neither — this VM's host launches sometimes split ~0.46 / ~0.70 ms within one
    // run (seen in a fresh-clone CI run), and the gate then refuses the median rather than judge it.
    expect(same.code, same.stdout).not.toBe(1);
    if (same.code === 3) expect(same.stdout).toMatch(CLUSTERS);
    else expect([0, 2], same.stdout).toContain(same.code);
    expect(same.stdout).toContain('byte-identical (same sha256: an A/A pair)');
    // Only --candidate-arm: the spec has no compare, so the first arm is the baseline, and the output says so.
    const defaulted = await gateSlow(out, []);
    expect(defaulted.code, defaulted.stdout).toBe(1);
    expect(defaulted.stdout).toContain('defaulted: baseline arm host:base: the spec declares no compare for host:slow, so the first arm of the run is the control');
  }, 600_000);
});
