import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../harness/errors.ts';
import { BUILTIN_SCRIPT, BUILTIN_TASKS_DIR, loadBuiltinTaskSet, loadTaskSet } from '../../../experiments/rollout/tasks/index.ts';
import { unittestTarget } from '../../../experiments/rollout/tasks/test-ids.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-task-set-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function userError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UserError);
  return (error as Error).message;
}

describe('loadTaskSet', () => {
  it('names the task sets it knows for an unknown name, and a missing .jsonl file', async () => {
    expect(await userError(loadTaskSet('swebench-lite', { cacheDir: root }))).toMatch(/unknown task set "swebench-lite"; expected builtin or swe-fixture, or the path of a SWE-bench-format \.jsonl file/);
    expect(await userError(loadTaskSet(join(root, 'absent.jsonl'), { cacheDir: root }))).toMatch(/absent\.jsonl does not exist/);
  });

  it('refuses a malformed built-in task definition naming its file and field, and a task without scripted paths', async () => {
    const tasks = join(root, 'tasks');
    cpSync(join(BUILTIN_TASKS_DIR, 'clamp-bounds'), join(tasks, 'clamp-bounds'), { recursive: true });
    writeFileSync(join(tasks, 'clamp-bounds', 'task.yaml'), 'prompt: fix it\nfix_size: one line\npass_to_pass: [tests.test_clamp.ClampTest.test_inside]\n');
    expect(await userError(loadBuiltinTaskSet({ cacheDir: root, tasksDir: tasks }))).toMatch(/clamp-bounds\/task\.yaml: field fail_to_pass: .*expected array/);
    writeFileSync(join(tasks, 'clamp-bounds', 'task.yaml'), 'prompt: fix it\nfix_size: one line\nfail_to_pass: ["not a test id"]\npass_to_pass: [tests.test_clamp.ClampTest.test_inside]\n');
    expect(await userError(loadBuiltinTaskSet({ cacheDir: root, tasksDir: tasks }))).toMatch(/task\.yaml: field fail_to_pass\[0\]: test id "not a test id" is not a unittest name/);
    cpSync(join(BUILTIN_TASKS_DIR, 'clamp-bounds'), join(tasks, 'unscripted'), { recursive: true });
    cpSync(join(BUILTIN_TASKS_DIR, 'clamp-bounds', 'task.yaml'), join(tasks, 'clamp-bounds', 'task.yaml'));
    expect(await userError(loadBuiltinTaskSet({ cacheDir: root, tasksDir: tasks, scriptPath: BUILTIN_SCRIPT }))).toMatch(/rollout-builtin\.yaml: no script task "unscripted" for built-in task unscripted \(its right path\)/);
  });

  it('reads the three test id spellings as unittest names and refuses the rest', () => {
    expect(unittestTarget('tests.test_x.Case.test_y')).toBe('tests.test_x.Case.test_y');
    expect(unittestTarget('test_y (tests.test_x.Case)')).toBe('tests.test_x.Case.test_y');
    expect(unittestTarget('test_y (tests.test_x.Case.test_y)')).toBe('tests.test_x.Case.test_y');
    expect(unittestTarget('tests/sub/test_x.py::Case::test_y')).toBe('tests.sub.test_x.Case.test_y');
    for (const id of ['tests/test_x.py::test_y', 'tests/test_x.py::Case::test_y[1]', 'test_y', 'tests/test-x.py::Case::test_y']) expect(unittestTarget(id), id).toBeNull();
  });
});
