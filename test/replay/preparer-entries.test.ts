/**
 * The compiled preparer entries (plain-JS bundle, V8 startup snapshot) behave exactly like the
 * TypeScript source: same manifest bytes, same categorized failures.
 */
import { execa } from 'execa';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPreparerBundle, buildPreparerSnapshot, type PreparerBundle } from '../../experiments/replay/preparer-bundle.ts';
import { preparePrefix } from '../../experiments/replay/prepare-prefix.ts';
import { REPLAY_FAILURES } from '../../experiments/replay/replay-error.ts';
import { subjectArgv } from '../../experiments/replay/subjects.ts';
import { writeTrajectorySet, type TrajectoryFile } from '../../experiments/replay/trajectory-set.ts';

let dir: string;
let file: TrajectoryFile;
const built: Partial<Record<'bundle' | 'snapshot', PreparerBundle>> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbench-test-replay-entries-'));
  [file] = await writeTrajectorySet(join(dir, 't'), ['opencode'], 1, 9);
  built.bundle = await buildPreparerBundle(dir);
  built.snapshot = await buildPreparerSnapshot(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(['bundle', 'snapshot'] as const)('%s entry', (entry) => {
  const argv = (trajectory: string, out: string) =>
    subjectArgv('sandbench', { agent: 'opencode', trajectory, workspace: dir, outputDir: out, stateDir: dir }, { command: process.execPath, entry, bundlePath: built[entry]!.path });

  it('writes the same manifest as the TypeScript preparer', async () => {
    const reference = join(dir, `ref-${entry}`);
    await preparePrefix({ agent: 'opencode', trajectoryPath: file!.path, afterStep: 1, outDir: reference });
    const out = join(dir, `out-${entry}`);
    const [cmd, ...args] = argv(file!.path, out);
    const result = await execa(cmd!, args);
    expect(JSON.parse(result.stdout).status).toBe('prepared');
    expect(await readFile(join(out, 'manifest.json'), 'utf8')).toBe((await readFile(join(reference, 'manifest.json'), 'utf8')).replaceAll(reference, out));
    expect(built[entry]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the one-line categorized error contract', async () => {
    const [cmd, ...args] = argv(join(dir, 'missing.jsonl'), join(dir, 'never'));
    const result = await execa(cmd!, args, { reject: false });
    expect(result.exitCode).toBe(REPLAY_FAILURES.unreadable_trajectory);
    expect(result.stderr.trim()).toMatch(/^sandbench: unreadable_trajectory: [^\n]+$/);
  });
});
