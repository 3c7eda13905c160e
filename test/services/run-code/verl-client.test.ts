/**
 * `serve run-code` against verl 0.9.1's own SandboxFusion client (scripts/build-verl-client-venv.sh
 * installs the released wheel with --no-deps; test/services/run-code/verl_client_driver.py calls
 * compute_score / _process_single_case / call_sandbox_api exactly as verl's reward path does). On
 * staged and podman: verl's classifications, the journal, bad input, and a sandbox killed from
 * outside mid-request (an error to the client, nothing left behind).
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningTrial } from '../../../harness/contracts/executor.ts';
import { findLeftovers } from '../../../harness/clean/find-leftovers.ts';
import { PROJECT_ROOT, runScratchDir, stateDir } from '../../../harness/state-dir.ts';
import { BUILTIN_LEFTOVER_SOURCES, createExecutor } from '../../../executors/registry.ts';
import { openRunCodeService, RunCodeJournalEntrySchema, type RunCodeService } from '../../../services/run-code/index.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const DRIVER = join(PROJECT_ROOT, 'test', 'services', 'run-code', 'verl_client_driver.py');

function verlPython(): string {
  const venv = execFileSync(join(PROJECT_ROOT, 'scripts', 'build-verl-client-venv.sh'), { encoding: 'utf8', timeout: 300_000 }).trim().split('\n').at(-1)!;
  return join(venv, 'bin', 'python');
}

interface VerlCase {
  result: boolean | number;
  status: string;
  api_status: string | null;
  run_status: string | null;
  exit_code: number | null;
  stdout: string | null;
}

describe.each(['staged', 'podman'])('serve run-code on %s, driven by verl 0.9.1', (backend) => {
  let service: RunCodeService;
  let python: string;
  const journal = join(tempDir(`run-code-${backend}-`), 'journal.jsonl');
  const sandboxes = new Map<string, RunningTrial>();

  beforeAll(async () => {
    python = verlPython();
    service = await openRunCodeService({ executor: createExecutor(backend, null)!, slots: 4, port: 0, journalPath: journal, log: () => undefined, onSandbox: (id, sandbox) => sandboxes.set(id, sandbox) });
  }, 600_000);
  afterAll(async () => {
    const runId = service?.runId;
    expect(await service?.close()).toEqual([]);
    if (runId) expect(await findLeftovers({ stateDir: stateDir(), runId, sources: BUILTIN_LEFTOVER_SOURCES })).toEqual([]);
  }, 120_000);

  it("verl's client classifies success, wrong answer, timeout, runtime error and a missing language as verl expects", async () => {
    // Asynchronously: the server runs in this process, so a synchronous child would block its replies.
    const { stdout } = await promisify(execFile)(python, [DRIVER, service.server.url], { encoding: 'utf8', timeout: 300_000 });
    const report = JSON.parse(stdout) as Record<string, VerlCase> & {
      verl_file: string;
      call_sandbox_api: { response: { status: string; run_result: { stdout: string } }; error: string | null };
      compute_score: { score: number; statuses: string[] };
    };
    expect(report.verl_file).toMatch(/site-packages\/verl\/utils\/reward_score\/sandbox_fusion\/utils\.py$/);
    expect(report.call_sandbox_api.error).toBeNull();
    expect(report.call_sandbox_api.response).toMatchObject({ status: 'Success', run_result: { status: 'Finished', return_code: 0, stdout: '42\n' } });
    expect(report.compute_score.score).toBeCloseTo(2 / 3, 10);
    expect(report.compute_score.statuses).toEqual(['success', 'success', 'wrong_answer']);
    expect(report.success).toMatchObject({ result: true, status: 'success', stdout: 'cba\n' });
    expect(report.wrong_answer).toMatchObject({ result: false, status: 'wrong_answer', stdout: 'abc\n' });
    expect(report.timeout).toMatchObject({ result: -3, status: 'timeout', run_status: 'TimeLimitExceeded' });
    expect(report.runtime_error).toMatchObject({ result: -2, status: 'runtime_error', exit_code: 3 });
    expect(report.exception).toMatchObject({ result: -2, status: 'runtime_error', exit_code: 1 });
    // The sandbox has no network: a connect to the host's loopback fails inside the program.
    expect(report.no_network).toMatchObject({ result: -2, status: 'runtime_error' });
    expect(report.bash).toMatchObject({ result: true, status: 'success', stdout: '42\n' });
    expect(report.unavailable_language).toMatchObject({ result: -1, status: 'sandbox_error', api_status: 'SandboxError' });

    const entries = readFileSync(journal, 'utf8').trim().split('\n').map((line) => RunCodeJournalEntrySchema.parse(JSON.parse(line)));
    const outcomes = entries.map((entry) => entry.outcome);
    expect(outcomes.filter((outcome) => outcome === 'finished')).toHaveLength(7);
    expect(outcomes).toEqual(expect.arrayContaining(['timeout', 'runtime_error', 'language_unavailable']));
    for (const entry of entries.filter((e) => e.outcome === 'finished')) {
      expect(entry.backend).toBe(backend);
      expect(entry.sandbox_start_ms).toBeGreaterThan(0);
      expect(entry.run_ms).toBeGreaterThan(0);
      expect(entry.teardown_ms).toBeGreaterThan(0);
      expect(entry.queue_wait_ms).toBeGreaterThanOrEqual(0);
      expect(entry.peak_rss_kib).toBeGreaterThan(1000);
    }
  }, 300_000);

  it("answers a malformed request with SandboxFusion's error shape and keeps serving", async () => {
    const bad = await fetch(service.server.url, { method: 'POST', body: '{"code": 1, "language": "python"}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ status: 'SandboxError', message: expect.stringMatching(/^not a RunCodeRequest: code: /), run_result: null, compile_result: null });
    const notJson = await fetch(service.server.url, { method: 'POST', body: 'print(1)' });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ status: 'SandboxError', message: expect.stringMatching(/not JSON/) });
    const good = await fetch(service.server.url, { method: 'POST', body: JSON.stringify({ code: 'print(1)', language: 'python' }) });
    expect(await good.json()).toMatchObject({ status: 'Success', run_result: { stdout: '1\n' } });
  }, 120_000);

  it('a sandbox killed from outside mid-request returns SandboxError to the client and leaves nothing behind', async () => {
    const before = new Set(sandboxes.keys());
    const pending = fetch(service.server.url, { method: 'POST', body: JSON.stringify({ code: 'print("started", flush=True)\nimport time\ntime.sleep(60)', language: 'python', run_timeout: 90 }) });
    const started = Date.now();
    let id: string | undefined;
    while (!id && Date.now() - started < 60_000) {
      id = [...sandboxes.keys()].find((key) => !before.has(key));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sandbox = sandboxes.get(id!)!;
    // Wait until the program runs (the runner printed its start line), then kill the sandbox's root processes.
    while (!sandbox.lines.some((line) => line.text === 'RUN_CODE_START') && Date.now() - started < 60_000) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const pid of sandbox.rootPids()) process.kill(pid, 'SIGKILL');
    const response = await pending;
    const body = (await response.json()) as { status: string; message: string };
    expect(Date.now() - started).toBeLessThan(45_000);
    expect(body.status).toBe('SandboxError');
    expect(body.message).toMatch(/the sandbox ended before the program's result/);
    // The request's scratch directory is gone while the server keeps running.
    expect(readdirSync(join(runScratchDir(stateDir(), service.runId), 'requests'))).toEqual([]);
    const entry = readFileSync(journal, 'utf8').trim().split('\n').map((line) => RunCodeJournalEntrySchema.parse(JSON.parse(line))).find((e) => e.request_id === id);
    expect(entry?.outcome).toMatch(/^sandbox_(killed|error)$/);
  }, 120_000);
});
