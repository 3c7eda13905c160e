/**
 * The package as a stranger gets it: `npm pack`, installed into a temp prefix, run from an
 * unrelated directory with the install directory read-only (a private mount namespace, so the
 * read-only bind vanishes with the process). `doctor` must build the launcher under
 * $SANDBENCH_HOME, and a rollout spec (it starts the model service in a child process, which must
 * resolve its modules from the package, not the cwd) must run with its task file beside the spec.
 * Serial: npm install and a real rollout take ≈ 30-60 s on the 2-core machine.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, stateDir } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const PACKAGE = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { files: string[]; version: string };

/** Runs argv with `dir` bind-mounted read-only over itself, in a mount namespace of its own. */
function readOnlyRun(dir: string, argv: string[], cwd: string) {
  const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"';
  return execa('unshare', ['-m', 'sh', '-c', script, 'sh', dir, ...argv], { cwd, reject: false, env: { SANDBENCH_DEBUG_ENTRY: '1' } });
}

async function packTarball(): Promise<string> {
  // A private copy of the package's files, so the prepare script's dist/ build never races a CLI the suite runs from the checkout.
  const copy = tempDir('sandbench-pack-src-');
  // dist/ may be absent (a clone never built): the prepare script builds it in the copy either way.
  for (const entry of ['package.json', 'README.md', ...PACKAGE.files].filter((entry) => existsSync(join(PROJECT_ROOT, entry)))) cpSync(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(copy, 'node_modules'));
  const out = tempDir('sandbench-pack-out-');
  const packed = await execa('npm', ['pack', '--pack-destination', out], { cwd: copy, reject: false });
  expect(packed.exitCode, packed.stderr).toBe(0);
  return join(out, readdirSync(out).find((name) => name.endsWith('.tgz'))!);
}

describe('the packed package', () => {
  it('ships dist/ and no tests; installed read-only, it runs doctor and a rollout spec from an unrelated directory', async () => {
    const tarball = await packTarball();
    const listing = (await execa('tar', ['-tzf', tarball])).stdout.split('\n');
    expect(listing).toContain('package/dist/sandbench.mjs');
    expect(listing).toContain('package/launcher/sandbench-launch.c');
    expect(listing.filter((path) => path.startsWith('package/test/') || path.endsWith('.test.ts'))).toEqual([]);

    // The prefix is someone else's git repository (a project that installs sandbench): its commit must never pass for sandbench's.
    const prefix = tempDir('sandbench-prefix-');
    await execa('git', ['init', '-q', prefix]);
    await execa('git', ['-C', prefix, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '--allow-empty', '-m', 'host project']);
    const installed = await execa('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: prefix, reject: false });
    expect(installed.exitCode, installed.stderr).toBe(0);
    const bin = join(prefix, 'bin', 'sandbench');
    const elsewhere = tempDir('sandbench-elsewhere-');

    const version = await readOnlyRun(prefix, [bin, '--version'], elsewhere);
    expect(version.stdout).toContain(`sandbench ${PACKAGE.version}`);
    // The packed build runs, whatever mtimes npm gave the sources.
    expect(version.stderr).toContain('entry: dist');

    const doctor = await readOnlyRun(prefix, [bin, 'doctor'], elsewhere);
    expect(doctor.exitCode, doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/^ok {4}host /m);
    expect(doctor.stdout).toContain(`launcher=${join(stateDir(), 'launcher')}/`);

    // A user's own task file beside the spec, named relative to it; run from another directory.
    const project = join(elsewhere, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'instances.jsonl'), `${readFileSync(join(PROJECT_ROOT, 'data', 'rollout-tasks', 'swe-fixture.jsonl'), 'utf8').split('\n')[0]}\n`);
    writeFileSync(
      join(project, 'rollout.yaml'),
      'name: packed-rollout\nexperiment: rollout\narms: [host]\nwarmups: 0\ntrials: 1\nseed: 7\nrollout:\n  tasks: ./instances.jsonl\n  attempts: 2\n  concurrency: [1]\n  model: [{ slots: 1, base_ms: 0 }]\n  scoring_backend: host\n',
    );
    const bundle = join(elsewhere, 'bundle');
    const run = await readOnlyRun(prefix, [bin, 'run', join('project', 'rollout.yaml'), '--out', bundle], elsewhere);
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const records = readFileSync(join(bundle, 'journal.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { outcome: string });
    expect(records.map((record) => record.outcome)).toEqual(['ok', 'ok']);
    const resolved = JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8')) as { spec: { rollout: { tasks: string } } };
    expect(resolved.spec.rollout.tasks).toBe(join(project, 'instances.jsonl'));
    const stamp = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'sandbench', 'dist', 'build-stamp.json'), 'utf8')) as { commit: string | null };
    const manifest = JSON.parse(readFileSync(join(bundle, 'manifest.json'), 'utf8')) as { harness_commit: string | null };
    expect(manifest.harness_commit).toBe(stamp.commit);
  }, 240_000);
});
