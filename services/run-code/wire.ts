/**
 * The `/run_code` wire format: SandboxFusion's RunCodeRequest / RunCodeResponse as verl 0.9.1's client
 * sends and reads them (data/run-code/verl-0.9.1-sandbox-fusion.md has the file:line facts). verl
 * sends every request field; the defaults are SandboxFusion's, for other clients. Unknown fields are
 * ignored, as pydantic does.
 */
import { z } from 'zod';
import { VERL_LANGUAGES } from './languages.ts';

export const RunCodeRequestSchema = z.object({
  code: z.string(),
  language: z.enum(VERL_LANGUAGES),
  compile_timeout: z.number().positive().default(10),
  run_timeout: z.number().positive().default(10),
  /** ≤ 0: no limit (SandboxFusion's default is -1). */
  memory_limit_MB: z.number().int().default(-1),
  stdin: z.string().nullable().default(null),
  /** Path in the workspace → base64 content (null: an empty file). */
  files: z.record(z.string(), z.string().nullable()).default({}),
  /** Workspace paths whose content comes back base64 in the response's `files`. */
  fetch_files: z.array(z.string()).default([]),
});

export type RunCodeRequest = z.output<typeof RunCodeRequestSchema>;

export type CommandStatus = 'Finished' | 'Error' | 'TimeLimitExceeded';

export interface CommandRunResult {
  status: CommandStatus;
  execution_time: number | null;
  return_code: number | null;
  stdout: string | null;
  stderr: string | null;
}

export interface RunCodeResponse {
  status: 'Success' | 'Failed' | 'SandboxError';
  message: string;
  compile_result: CommandRunResult | null;
  run_result: CommandRunResult | null;
  executor_pod_name: string | null;
  files: Record<string, string>;
}

/** SandboxFusion's answer for anything that is not the program's own doing (verl: `sandbox_error`, −1). */
export function sandboxError(message: string): RunCodeResponse {
  return { status: 'SandboxError', message, compile_result: null, run_result: null, executor_pod_name: null, files: {} };
}

/** A request body that is not a RunCodeRequest: `<field>: <problem>` for each issue, in one line. */
export function describeRequestIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
}
