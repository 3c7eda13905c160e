/**
 * The compile step (cpp, SandboxFusion's g++ -std=c++17) on staged, from the image with
 * RUN_CODE_COMPILER_PACKAGES: verl 0.9.1's own client classifies a compiled program's success, wrong
 * answer, compile error and runtime error as on SandboxFusion; a compile over its timeout is verl's
 * compile_timeout; the journal times compile and run apart. The image is cached after its first build
 * (about a minute, offline from the Debian mirror).
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLeftovers } from '../../../harness/clean/find-leftovers.ts';
import { PROJECT_ROOT, stateDir } from '../../../harness/state-dir.ts';
import { BUILTIN_LEFTOVER_SOURCES, createExecutor } from '../../../executors/registry.ts';
import { verlVerdict } from '../../../experiments/run-code/request-stream.ts';
import { openRunCodeService, RunCodeJournalEntrySchema, type RunCodeService } from '../../../services/run-code/index.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const DRIVER = join(PROJECT_ROOT, 'test', 'services', 'run-code', 'verl_client_driver.py');

interface VerlCase {
  result: boolean | number;
  status: string;
  api_status: string | null;
  run_status: string | null;
  exit_code: number | null;
  stdout: string | null;
}

describe('serve run-code --compilers on staged: cpp compiles, then runs', () => {
  let service: RunCodeService;
  const journal = join(tempDir('run-code-cpp-'), 'journal.jsonl');
  const entries = () => readFileSync(journal, 'utf8').trim().split('\n').map((line) => RunCodeJournalEntrySchema.parse(JSON.parse(line)));

  beforeAll(async () => {
    service = await openRunCodeService({ executor: createExecutor('staged', null)!, slots: 4, port: 0, journalPath: journal, compilers: true, log: () => undefined });
  }, 600_000);
  afterAll(async () => {
    const runId = service?.runId;
    expect(await service?.close()).toEqual([]);
    if (runId) expect(await findLeftovers({ stateDir: stateDir(), runId, sources: BUILTIN_LEFTOVER_SOURCES })).toEqual([]);
  }, 120_000);

  it("verl's client gets success, wrong answer, compile error and runtime error for C++", async () => {
    expect(service.languages).toContain('cpp');
    const venv = execFileSync(join(PROJECT_ROOT, 'scripts', 'build-verl-client-venv.sh'), { encoding: 'utf8', timeout: 300_000 }).trim().split('\n').at(-1)!;
    const { stdout } = await promisify(execFile)(join(venv, 'bin', 'python'), [DRIVER, service.server.url, 'cpp'], { encoding: 'utf8', timeout: 120_000 });
    const report = JSON.parse(stdout) as Record<string, VerlCase> & { call_sandbox_api: { response: Record<string, unknown>; error: string | null } };
    expect(report.call_sandbox_api.error).toBeNull();
    expect(report.call_sandbox_api.response).toMatchObject({ status: 'Success', compile_result: { status: 'Finished', return_code: 0 }, run_result: { status: 'Finished', return_code: 0, stdout: '49\n' } });
    expect(report.success).toMatchObject({ result: true, status: 'success', stdout: '144\n' });
    expect(report.wrong_answer).toMatchObject({ result: false, status: 'wrong_answer' });
    expect(report.compile_error).toMatchObject({ result: -4, status: 'compile_error', api_status: 'Failed', run_status: null });
    expect(report.runtime_error).toMatchObject({ result: -2, status: 'runtime_error', exit_code: 3 });

    const lines = entries();
    const compileError = lines.find((entry) => entry.outcome === 'compile_error')!;
    expect(compileError.compile_ms).toBeGreaterThan(0);
    expect(compileError.run_ms).toBeNull();
    for (const entry of lines.filter((e) => e.outcome === 'finished')) {
      expect(entry.language).toBe('cpp');
      expect(entry.compile_ms).toBeGreaterThan(entry.run_ms!);
      expect(entry.run_ms).toBeGreaterThan(0);
    }
  }, 180_000);

  it('a compile over compile_timeout is Failed with a TimeLimitExceeded compile_result and no run (verl: compile_timeout)', async () => {
    const body = { code: '#include <iostream>\nint main() { std::cout << 1; }\n', language: 'cpp', compile_timeout: 0.01, run_timeout: 10, stdin: null, memory_limit_MB: 1024, files: {}, fetch_files: [] };
    const response = await fetch(service.server.url, { method: 'POST', body: JSON.stringify(body) });
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ status: 'Failed', compile_result: { status: 'TimeLimitExceeded' }, run_result: null });
    expect(verlVerdict(response.status, text, '1')).toBe('compile_timeout');
    expect(entries().at(-1)?.outcome).toBe('compile_timeout');
  }, 60_000);
});
