/**
 * A run-code request stream: what verl's reward path sends (a program, its stdin, the expected
 * stdout) and the verdict verl should reach on a correct substrate. Two sources, one shape: a
 * generated stream (`sandbench-run-code-stream/1` lines, generate-stream.ts) or a `serve run-code`
 * journal (its `request` field; no expected stdout, so verl's rule for a missing expectation applies:
 * any Success counts as success, and the recorded outcome is the expected verdict).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UserError } from '../../harness/errors.ts';

export const RUN_CODE_STREAM_SCHEMA = 'sandbench-run-code-stream/1';

/** verl 0.9.1's per-case statuses (sandbox_fusion/utils.py:353–445), the ones a stream can expect. */
export const VERL_VERDICTS = ['success', 'wrong_answer', 'timeout', 'runtime_error', 'compile_error', 'compile_timeout', 'sandbox_error', 'api_error', 'unknown'] as const;
export type VerlVerdict = (typeof VERL_VERDICTS)[number];

export const StreamEntrySchema = z
  .object({
    schema: z.literal(RUN_CODE_STREAM_SCHEMA),
    id: z.string().min(1),
    language: z.string().min(1),
    code: z.string(),
    stdin: z.string().nullable(),
    expected_stdout: z.string().nullable(),
    run_timeout: z.number().positive(),
    memory_limit_MB: z.number().int(),
    expect: z.enum(VERL_VERDICTS),
  })
  .strict();

export type StreamEntry = z.infer<typeof StreamEntrySchema>;

const JOURNAL_OUTCOME_VERDICT: Record<string, VerlVerdict> = { finished: 'success', runtime_error: 'runtime_error', timeout: 'timeout', compile_error: 'compile_error', compile_timeout: 'compile_timeout', language_unavailable: 'sandbox_error' };

function fromJournalLine(line: Record<string, unknown>, where: string): StreamEntry | null {
  const request = line.request as { code: string; language: string; stdin: string | null; run_timeout: number; memory_limit_MB: number } | null;
  const expect = JOURNAL_OUTCOME_VERDICT[String(line.outcome)];
  // Requests the server never ran as programs (bad input, a killed sandbox) are not part of verl's load.
  if (!request || !expect) return null;
  if (typeof request.code !== 'string') throw new UserError(`${where}: journal line without request.code`);
  return { schema: RUN_CODE_STREAM_SCHEMA, id: String(line.request_id), language: request.language, code: request.code, stdin: request.stdin, expected_stdout: null, run_timeout: request.run_timeout, memory_limit_MB: request.memory_limit_MB, expect };
}

export function loadStream(path: string): StreamEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`run_code.stream: cannot read ${path} (${(error as Error).message}); give a stream from experiments/run-code/generate-stream.ts or a serve run-code journal`);
  }
  const entries: StreamEntry[] = [];
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `${path}:${index + 1}`;
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new UserError(`${where}: not JSON (run_code.stream takes JSONL)`);
    }
    if (line.schema === RUN_CODE_STREAM_SCHEMA) {
      const parsed = StreamEntrySchema.safeParse(line);
      if (!parsed.success) throw new UserError(`${where}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
      entries.push(parsed.data);
    } else if (line.schema === 'sandbench-run-code-journal/1') {
      const entry = fromJournalLine(line, where);
      if (entry) entries.push(entry);
    } else {
      throw new UserError(`${where}: schema ${JSON.stringify(line.schema)} is neither ${RUN_CODE_STREAM_SCHEMA} nor sandbench-run-code-journal/1`);
    }
  });
  if (entries.length === 0) throw new UserError(`run_code.stream: ${path} holds no runnable request`);
  return entries;
}

/** The request body verl's call_sandbox_api sends for one entry (utils.py:101–112). */
export function requestBody(entry: StreamEntry): string {
  return JSON.stringify({ compile_timeout: entry.run_timeout, run_timeout: entry.run_timeout, code: entry.code, stdin: entry.stdin, memory_limit_MB: entry.memory_limit_MB, language: entry.language, files: {}, fetch_files: [] });
}

interface ResponseView {
  status?: string;
  compile_result?: { status?: string; return_code?: number } | null;
  run_result?: { status?: string; return_code?: number; stdout?: string | null } | null;
}

/** verl 0.9.1's classification of one case (_process_single_case, utils.py:353–445), reproduced step by step. */
export function verlVerdict(httpStatus: number, body: string, expectedStdout: string | null): VerlVerdict {
  if (httpStatus < 200 || httpStatus >= 300) return 'api_error';
  let response: ResponseView;
  try {
    response = JSON.parse(body) as ResponseView;
  } catch {
    return 'api_error';
  }
  const compile = response.compile_result;
  const run = response.run_result;
  if (response.status === 'SandboxError') return 'sandbox_error';
  if (response.status === 'Failed') {
    // utils.py:386–395: a compile Error, time limit or non-zero exit is a compile failure; the time limit is reported apart.
    if (compile && (compile.status === 'Error' || compile.status === 'TimeLimitExceeded' || (compile.status === 'Finished' && compile.return_code !== 0))) return compile.status === 'TimeLimitExceeded' ? 'compile_timeout' : 'compile_error';
    if (!run) return 'unknown';
    if (run.status === 'TimeLimitExceeded') return 'timeout';
    if (run.status === 'Error' || (run.status === 'Finished' && run.return_code !== 0)) return 'runtime_error';
    return 'unknown';
  }
  if (response.status === 'Success') {
    if (!run || run.status !== 'Finished') return 'unknown';
    const stdout = run.stdout ?? '';
    return expectedStdout === null || stdout.replace(/\n+$/, '') === expectedStdout.replace(/\n+$/, '') ? 'success' : 'wrong_answer';
  }
  return 'unknown';
}
