/**
 * SWE-bench / SWE-Gym task instances from a local JSONL file: one JSON object per line with
 * instance_id, repo, base_commit, patch (the gold patch), test_patch, FAIL_TO_PASS and PASS_TO_PASS
 * (a list, or a JSON-encoded list as SWE-bench ships them), optionally problem_statement (the
 * agent's prompt). Other fields (version, created_at, hints_text, environment_setup_commit, …) are
 * accepted and ignored. Every problem is a UserError naming the file, line, instance and field.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../../harness/errors.ts';
import { splitPatch } from './patch-files.ts';
import { TEST_ID_FORMS, unittestTarget, type TestRef } from './test-ids.ts';

export interface SweInstance {
  readonly instanceId: string;
  readonly repo: string;
  readonly baseCommit: string;
  readonly patch: string;
  readonly testPatch: string;
  readonly failToPass: readonly TestRef[];
  readonly passToPass: readonly TestRef[];
  readonly problemStatement: string | null;
  /** SWE-bench 5 rows: version, and their own eval script + log parser for `grader: swebench` (null: generated). */
  readonly version: string | null;
  readonly evalScript: { readonly evalScript: string; readonly logParser: string; readonly evalType: string } | null;
  /** 1-based line in the file (for later errors: unknown repo, absent commit, patch that does not apply). */
  readonly line: number;
}

/** Ids appear in URL paths and script task ids (/t/<id>/, `<id>.wrong`). */
const INSTANCE_ID = /^[A-Za-z0-9_.-]+$/;

/** A list field: a JSON array of strings, or a string holding one (SWE-bench's datasets encode them so). */
const TestList = z.preprocess(
  (value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return { notJson: value };
    }
  },
  z.array(z.string().min(1, 'an empty test id')),
);

const Instance = z.object({
  instance_id: z.string().regex(INSTANCE_ID, 'only letters, digits, ".", "_" and "-" (it names the task in model URLs)'),
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'expected "owner/name"'),
  base_commit: z.string().regex(/^[0-9a-f]{40}$/, 'expected the full 40-hex commit id'),
  patch: z.string().min(1, 'the gold patch is empty'),
  test_patch: z.string().min(1, 'the test patch is empty'),
  FAIL_TO_PASS: TestList,
  PASS_TO_PASS: TestList,
  problem_statement: z.string().optional(),
  version: z.union([z.string(), z.number()]).optional(),
  eval_script: z.string().min(1).optional(),
  log_parser: z.string().min(1).optional(),
  eval_type: z.enum(['pass_and_fail', 'fail_only']).optional(),
});

const FIELD_HELP: Record<string, string> = {
  instance_id: 'give each instance a unique id such as "owner__name-123"',
  repo: 'name the repository as "owner/name" and map it to a local directory (rollout.repos)',
  base_commit: 'give the commit the instance starts from, as SWE-bench does (40 hex digits)',
  patch: 'give the gold patch as a git-format unified diff',
  test_patch: 'give the test patch as a git-format unified diff',
  FAIL_TO_PASS: 'give a list of test ids, or a JSON-encoded list as SWE-bench ships it (e.g. "[\\"tests.test_x.Case.test_y\\"]")',
  PASS_TO_PASS: 'give a list of test ids (possibly empty), or a JSON-encoded list as SWE-bench ships it',
  problem_statement: 'give the issue text as a string',
  eval_script: 'give the SWE-bench 5 eval script (bash) together with log_parser, or leave both out',
  log_parser: 'give a swebench PARSER_REGISTRY name (e.g. "parse_log_pytest") together with eval_script, or leave both out',
  eval_type: 'give "pass_and_fail" or "fail_only"',
};

function where(file: string, line: number, id: string | null): string {
  return `${file}:${line}${id ? ` instance ${id}` : ''}`;
}

function refs(ids: readonly string[], at: string, field: string): TestRef[] {
  return ids.map((id, index) => {
    const target = unittestTarget(id);
    if (!target) throw new UserError(`${at}: field ${field}[${index}]: test id "${id}" is not ${TEST_ID_FORMS}`);
    return { id, target };
  });
}

/** Parse and validate JSONL text; `file` names it in errors. */
export function parseSweInstances(text: string, file: string): SweInstance[] {
  const instances: SweInstance[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new UserError(`${where(file, line, null)}: not a JSON object (${(error as Error).message}); a SWE-bench JSONL file holds one instance object per line`);
    }
    const id = typeof value === 'object' && value !== null && typeof (value as { instance_id?: unknown }).instance_id === 'string' ? (value as { instance_id: string }).instance_id : null;
    const at = where(file, line, id);
    const parsed = Instance.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = String(issue.path[0] ?? '(top level)');
      const detail = issue.path.length > 1 ? `${field}[${String(issue.path[1])}]` : field;
      const missing = typeof value === 'object' && value !== null && issue.path.length === 1 && (value as Record<string, unknown>)[field] === undefined;
      const message = missing ? 'missing' : issue.message;
      throw new UserError(`${at}: field ${detail}: ${message}${FIELD_HELP[field] ? `; ${FIELD_HELP[field]}` : ''}`);
    }
    const data = parsed.data;
    const first = seen.get(data.instance_id);
    if (first !== undefined) throw new UserError(`${at}: field instance_id: "${data.instance_id}" is also the id on line ${first}; instance ids must be unique`);
    seen.set(data.instance_id, line);
    if ((data.eval_script === undefined) !== (data.log_parser === undefined)) {
      const missing = data.eval_script === undefined ? 'eval_script' : 'log_parser';
      throw new UserError(`${at}: field ${missing}: missing; ${FIELD_HELP[missing]}`);
    }
    if (data.FAIL_TO_PASS.length === 0) throw new UserError(`${at}: field FAIL_TO_PASS: the list is empty; an instance needs at least one test the gold patch makes pass`);
    for (const field of ['patch', 'test_patch'] as const) {
      if (splitPatch(data[field]).length === 0) throw new UserError(`${at}: field ${field}: no "diff --git" section; ${FIELD_HELP[field]}`);
    }
    instances.push({
      instanceId: data.instance_id,
      repo: data.repo,
      baseCommit: data.base_commit,
      patch: data.patch,
      testPatch: data.test_patch,
      failToPass: refs(data.FAIL_TO_PASS, at, 'FAIL_TO_PASS'),
      passToPass: refs(data.PASS_TO_PASS, at, 'PASS_TO_PASS'),
      problemStatement: data.problem_statement ?? null,
      version: data.version === undefined ? null : String(data.version),
      evalScript: data.eval_script && data.log_parser ? { evalScript: data.eval_script, logParser: data.log_parser, evalType: data.eval_type ?? 'pass_and_fail' } : null,
      line,
    });
  });
  if (instances.length === 0) throw new UserError(`${file}: no instances (the file is empty); a SWE-bench JSONL file holds one instance object per line`);
  return instances;
}

export function readSweInstances(file: string): SweInstance[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(`${file}: cannot read the instance file (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  return parseSweInstances(text, file);
}
