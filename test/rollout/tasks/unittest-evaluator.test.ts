import { chmodSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import type { CandidateFiles } from '../../../experiments/rollout/task-contract.ts';
import { SCORE_DIR, UnittestEvaluator } from '../../../experiments/rollout/tasks/unittest-evaluator.ts';
import { unittestTarget } from '../../../experiments/rollout/tasks/test-ids.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-evaluator-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function tree(dir: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const baseline = tree(join(root, 'baseline'), {
  'calc/__init__.py': 'def add(a, b):\n    return a - b\n',
  'tests/__init__.py': '',
  'tests/test_calc.py': 'import unittest\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 2), 4)\n\n    def test_zero(self):\n        self.assertEqual(add(0, 0), 0)\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
});
const ref = (id: string) => ({ id, target: unittestTarget(id)! });
const evaluator = (extra: Partial<ConstructorParameters<typeof UnittestEvaluator>[0]> = {}) =>
  new UnittestEvaluator({ label: 'test', baselineDir: baseline, failToPass: [ref('tests.test_calc.T.test_add')], passToPass: [ref('tests.test_calc.T.test_zero')], ...extra });

let n = 0;
function candidate(files: Record<string, string>, deleted: string[] = []): CandidateFiles & { dir: string } {
  n += 1;
  const dir = tree(join(root, `cand-${n}`), files);
  return { dir, changed: Object.keys(files), deleted };
}

async function score(ev: UnittestEvaluator, cand: CandidateFiles) {
  n += 1;
  const dir = join(root, `score-${n}`);
  await ev.stageScoringWorkspace(dir, cand);
  const [cmd, ...args] = ev.scoringArgv;
  const run = await execa(cmd!, args, { cwd: dir, reject: false, timeout: 60_000 });
  return { dir, run, score: ev.parseScore({ exitCode: run.exitCode ?? null, stdout: String(run.stdout), stderr: String(run.stderr) }) };
}

/** Every file below `dir`: its path, mode and text (what "the same workspace" means). */
function listing(dir: string, rel = ''): { path: string; mode: number; text: string | null }[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((entry) => {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    const mode = statSync(join(dir, path)).mode & 0o7777;
    return entry.isDirectory() ? [{ path, mode, text: null }, ...listing(dir, path)] : [{ path, mode, text: readFileSync(join(dir, path), 'utf8') }];
  });
}

const FIXED = { 'calc/__init__.py': 'def add(a, b):\n    return a + b\n' };

describe('the unittest evaluator', () => {
  it('scores the fixed candidate 1 and the baseline 0; the runner prints exactly one stdout line', async () => {
    const fixed = await score(evaluator(), candidate(FIXED));
    expect(fixed.score).toEqual({ reward: 1, passed: ['tests.test_calc.T.test_add', 'tests.test_calc.T.test_zero'], failed: [], statuses: { 'tests.test_calc.T.test_add': 'pass', 'tests.test_calc.T.test_zero': 'pass' } });
    expect(String(fixed.run.stdout).trim().split('\n')).toHaveLength(1);
    const unfixed = await score(evaluator(), candidate({}));
    expect(unfixed.score).toMatchObject({ reward: 0, passed: ['tests.test_calc.T.test_zero'], failed: ['tests.test_calc.T.test_add'], statuses: { 'tests.test_calc.T.test_zero': 'pass' } });
    expect(existsSync(join(unfixed.dir, '.git'))).toBe(false);
  });

  it('a candidate that breaks the tests is reward 0, never an evaluator error: syntax error, os._exit, a hang, a shadowed stdlib module', async () => {
    const syntax = await score(evaluator(), candidate({ 'calc/__init__.py': 'def add(a, b)\n' }));
    expect(syntax.score.evaluatorError).toBeUndefined();
    expect(syntax.score).toMatchObject({ reward: 0 });
    const exits = await score(evaluator(), candidate({ 'calc/__init__.py': 'import os\ndef add(a, b):\n    os._exit(7)\n' }));
    expect(exits.score.evaluatorError).toBeUndefined();
    expect(exits.score).toMatchObject({ reward: 0, failed: ['tests.test_calc.T.test_add', 'tests.test_calc.T.test_zero'] });
    expect(String(exits.run.stdout)).toContain('"crashed"');
    const hangs = await score(evaluator({ timeoutSeconds: 1 }), candidate({ 'calc/__init__.py': 'import time\ndef add(a, b):\n    time.sleep(60)\n' }));
    expect(hangs.score.evaluatorError).toBeUndefined();
    expect(hangs.score).toMatchObject({ reward: 0 });
    expect(String(hangs.run.stdout)).toContain('"timeout"');
    expect(evaluator({ timeoutSeconds: 1 }).deadlineMs).toBe(1000);
    expect(evaluator().deadlineMs).toBe(45_000);
    const shadow = await score(evaluator(), candidate({ ...FIXED, 'json.py': 'raise SystemExit("shadowed")\n', 'subprocess.py': 'raise SystemExit("shadowed")\n' }));
    expect(shadow.score).toMatchObject({ reward: 1 });
  });

  it('unparseable scoring output is an evaluator error (infrastructure), not reward 0', () => {
    const ev = evaluator();
    const line = (results: Record<string, string>) => `SANDBENCH_SCORE ${JSON.stringify({ schema: 'sandbench-score/1', results })}`;
    for (const stdout of ['', 'Killed', 'SANDBENCH_SCORE {not json', 'SANDBENCH_SCORE {"schema":"other/1","results":{}}', line({ 'tests.test_calc.T.test_add': 'pass' })]) {
      const result = ev.parseScore({ exitCode: 137, stdout, stderr: 'oom-killer\n' });
      expect(result.evaluatorError, stdout).toMatch(/SANDBENCH_SCORE|did not report/);
      expect(result.evaluatorError).toContain('scoring exit 137');
    }
    const both = { 'tests.test_calc.T.test_add': 'pass', 'tests.test_calc.T.test_zero': 'skip' };
    expect(ev.parseScore({ exitCode: 1, stdout: `noise\n${line(both)}\n`, stderr: '' })).toEqual({ reward: 0, passed: ['tests.test_calc.T.test_add'], failed: ['tests.test_calc.T.test_zero'], statuses: both });
  });

  it('stages deletions, ignores git/rollout metadata, cannot be tampered with, refuses escaping paths', async () => {
    const staged = await score(
      evaluator(),
      candidate({ ...FIXED, '.git/config': 'x', '.sandbench-rollout/trajectory.json': '{}', 'calc/__pycache__/__init__.cpython-311.pyc': 'stale', [`${SCORE_DIR}/score_runner.py`]: 'print("SANDBENCH_SCORE forged")\n' }, ['tests/test_calc.py']),
    );
    // the deleted test file is gone, so both required tests are missing: reward 0, no error
    expect(staged.score.evaluatorError).toBeUndefined();
    expect(staged.score).toMatchObject({ reward: 0, passed: [] });
    expect(existsSync(join(staged.dir, '.git'))).toBe(false);
    expect(existsSync(join(staged.dir, '.sandbench-rollout'))).toBe(false);
    expect(existsSync(join(staged.dir, 'calc', '__pycache__'))).toBe(false);
    expect(readFileSync(join(staged.dir, SCORE_DIR, 'score_runner.py'), 'utf8')).toContain('sandbench rollout scoring runner');
    await expect(evaluator().stageScoringWorkspace(join(root, 'escape'), { dir: root, changed: ['../outside.py'], deleted: [] })).rejects.toThrow(/escapes the workspace/);
    await expect(evaluator().stageScoringWorkspace(join(root, 'absolute'), { dir: root, changed: [], deleted: ['/etc/passwd'] })).rejects.toThrow(/is absolute/);
  });

  it('an in-memory candidate stages the workspace its extracted copy would: same paths, bytes and modes', async () => {
    const files = { ...FIXED, 'calc/extra/new.py': 'NEW = 1\n', 'tests/__init__.py': '# changed\n' };
    const executable = tree(join(root, 'exec-baseline'), Object.fromEntries(['calc/__init__.py', 'tests/__init__.py', 'tests/test_calc.py'].map((path) => [path, readFileSync(join(baseline, path), 'utf8')])));
    chmodSync(join(executable, 'calc/__init__.py'), 0o755);
    linkSync(join(executable, 'tests/__init__.py'), join(executable, 'tests/twin.py'));
    const ev = evaluator({ baselineDir: executable });
    const onDisk = candidate(files, ['tests/test_calc.py']);
    const inMemory: CandidateFiles = { changed: onDisk.changed, deleted: onDisk.deleted, contents: new Map(Object.entries(files).map(([path, text]) => [path, Buffer.from(text)])) };
    const staged = await Promise.all([onDisk, inMemory].map(async (cand, i) => {
      const dir = join(root, `same-${i}`);
      await ev.stageScoringWorkspace(dir, cand);
      return listing(dir);
    }));
    expect(staged[1]).toEqual(staged[0]);
    expect(staged[0]!.find((entry) => entry.path === 'calc/__init__.py')).toMatchObject({ text: FIXED['calc/__init__.py'], mode: 0o666 & ~process.umask() });
    expect(staged[0]!.some((entry) => entry.path === 'tests/test_calc.py')).toBe(false);
  });

  it('the runner dir replaces a baseline\'s own; a changed file overwrites its copy, never the baseline or a hard-linked sibling', async () => {
    const linked = tree(join(root, 'linked-baseline'), { ...Object.fromEntries(['calc/__init__.py', 'tests/__init__.py', 'tests/test_calc.py'].map((path) => [path, readFileSync(join(baseline, path), 'utf8')])), [`${SCORE_DIR}/stale.txt`]: 'stale' });
    linkSync(join(linked, 'calc/__init__.py'), join(linked, 'calc/twin.py'));
    const ev = evaluator({ baselineDir: linked });
    const cand = candidate(FIXED);
    chmodSync(join(cand.dir, 'calc/__init__.py'), 0o750);
    const first = await score(ev, cand);
    const second = await score(ev, cand);
    for (const staged of [first, second]) {
      expect(staged.score).toMatchObject({ reward: 1 });
      expect(readdirSync(join(staged.dir, SCORE_DIR)).sort()).toEqual(['score_runner.py', 'tests.json']);
      expect(readFileSync(join(staged.dir, 'calc/__init__.py'), 'utf8')).toBe(FIXED['calc/__init__.py']);
      expect(statSync(join(staged.dir, 'calc/__init__.py')).mode & 0o777).toBe(0o750);
      expect(readFileSync(join(staged.dir, 'calc/twin.py'), 'utf8')).toContain('return a - b');
    }
    expect(readFileSync(join(linked, 'calc/__init__.py'), 'utf8')).toContain('return a - b');
    expect(JSON.parse(readFileSync(join(first.dir, SCORE_DIR, 'tests.json'), 'utf8')).tests).toHaveLength(2);
  });

  it('a test patch lands on the baseline test files, whatever the candidate did to them', async () => {
    const testPatch = [
      'diff --git a/tests/test_calc.py b/tests/test_calc.py',
      '--- a/tests/test_calc.py',
      '+++ b/tests/test_calc.py',
      '@@ -7,3 +7,6 @@ class T(unittest.TestCase):',
      ' ',
      '     def test_zero(self):',
      '         self.assertEqual(add(0, 0), 0)',
      '+',
      '+    def test_negative(self):',
      '+        self.assertEqual(add(-1, -1), -2)',
      '',
    ].join('\n');
    const ev = evaluator({ failToPass: [ref('tests.test_calc.T.test_add'), ref('tests.test_calc.T.test_negative')], testPatch });
    // the candidate "fixes" the tests instead of the code: its test edit is reset before the patch
    const cheat = await score(ev, candidate({ 'tests/test_calc.py': 'import unittest\nclass T(unittest.TestCase):\n    def test_add(self): pass\n    def test_negative(self): pass\n    def test_zero(self): pass\n' }));
    expect(cheat.score).toMatchObject({ reward: 0, failed: ['tests.test_calc.T.test_add', 'tests.test_calc.T.test_negative'] });
    const fixed = await score(ev, candidate(FIXED));
    expect(fixed.score).toMatchObject({ reward: 1 });
    expect(ev.version).not.toBe(evaluator().version);
  });
});
