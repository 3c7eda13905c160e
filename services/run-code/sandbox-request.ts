/**
 * One /run_code request in a fresh sandbox, through the Executor contract's execution path: write the
 * request's workspace, stage it, launch the in-sandbox runner, collect the program's output files,
 * drop everything. Every phase is timed on the host clock; the runner's own figures (the program's
 * execution time and peak RSS) come back on its RUN_CODE_RESULT line. A sandbox that ends without
 * that line (killed, failed to start) is a SandboxError to the client, never a program result.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { CandidateFiles, Executor, ExitInfo, OutputLine, RunContext, RunningTrial, TrialContext } from '../../harness/contracts/executor.ts';
import type { LanguageRecipe } from './languages.ts';
import { sandboxError, type CommandRunResult, type RunCodeRequest, type RunCodeResponse } from './wire.ts';

// From the project root, never import.meta.url: the compiled dist/ bundle lives elsewhere (test/architecture/dist-build.test.ts).
const RUNNER_SOURCE = join(PROJECT_ROOT, 'services', 'run-code', 'runner.py');
const START_MARKER = 'RUN_CODE_START';
const RESULT_MARKER = 'RUN_CODE_RESULT';
const COMPILE_STEP = '.compile';
const RUN_STEP = '.run';
/** Output returned per stream; SandboxFusion truncates too. Longer output is cut and the cut is said in the message. */
const MAX_OUTPUT_BYTES = 1 << 20;
/** Beyond the program's own timeouts: the sandbox's start and teardown (a podman/gVisor start under load takes seconds). */
const SANDBOX_ALLOWANCE_MS = 60_000;

/** What the server journals about a request (services/run-code/journal.ts). */
export type RunOutcome = 'finished' | 'runtime_error' | 'timeout' | 'compile_error' | 'compile_timeout' | 'sandbox_error' | 'sandbox_killed';

export interface RequestPhases {
  stage_ms: number | null;
  /** Launch spawn → the runner's RUN_CODE_START line: what the sandbox costs before the program starts. */
  sandbox_start_ms: number | null;
  /** A compiled language's compile step as the runner measured it (null for an interpreted one). */
  compile_ms: number | null;
  /** The program's execution time as the runner measured it (null when the compile step failed). */
  run_ms: number | null;
  /** Launch spawn → the sandbox's exit. */
  sandbox_ms: number | null;
  collect_ms: number | null;
  teardown_ms: number | null;
  /** The program's peak RSS (its own process tree, never the compiler's). */
  peak_rss_kib: number | null;
}

export const EMPTY_PHASES: RequestPhases = { stage_ms: null, sandbox_start_ms: null, compile_ms: null, run_ms: null, sandbox_ms: null, collect_ms: null, teardown_ms: null, peak_rss_kib: null };

export interface SandboxRequestResult {
  response: RunCodeResponse;
  outcome: RunOutcome;
  phases: RequestPhases;
  /** Why it was a SandboxError, for the journal. */
  error: string | null;
}

interface RunnerStep {
  name: string;
  status: 'Finished' | 'TimeLimitExceeded';
  return_code: number;
  execution_time: number;
  peak_rss_kib: number;
  stdout_file: string;
  stderr_file: string;
}

export interface SandboxRequestInput {
  executor: Executor;
  run: RunContext;
  /** A directory of its own for this request (created here, removed at the end). */
  requestDir: string;
  requestId: string;
  request: RunCodeRequest;
  recipe: LanguageRecipe;
  /** Called with the running sandbox, so a server closing mid-request can kill it. */
  onRunning?: (running: RunningTrial) => void;
}

const msSince = (from: bigint, to: bigint = process.hrtime.bigint()) => Number(to - from) / 1e6;

/** A request file path must stay inside the workspace. */
function workspacePath(root: string, relative: string): string {
  const clean = normalize(relative).replace(/^\/+/, '');
  if (clean.startsWith('..') || clean === '.' || clean === '') throw new Error(`files: ${JSON.stringify(relative)} is not a path inside the workspace`);
  return join(root, clean);
}

function writeWorkspace(baseline: string, request: RunCodeRequest, recipe: LanguageRecipe): void {
  mkdirSync(baseline, { recursive: true });
  for (const [path, base64] of Object.entries(request.files)) {
    const target = workspacePath(baseline, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, base64 === null ? '' : Buffer.from(base64, 'base64'));
  }
  writeFileSync(join(baseline, recipe.file), request.code);
  writeFileSync(join(baseline, '.stdin'), request.stdin ?? '');
  // SandboxFusion gives the compiler no stdin (an immediately closed pipe): an empty file reads the same.
  writeFileSync(join(baseline, '.compile-stdin'), '');
  copyFileSync(RUNNER_SOURCE, join(baseline, '.runner.py'));
  const compile = recipe.compile ? [{ name: COMPILE_STEP, argv: recipe.compile, timeout_s: request.compile_timeout, stdin_file: '.compile-stdin' }] : [];
  const steps = [...compile, { name: RUN_STEP, argv: recipe.run, timeout_s: request.run_timeout, stdin_file: '.stdin' }];
  writeFileSync(join(baseline, '.request.json'), JSON.stringify({ steps, memory_mib: request.memory_limit_MB }));
}

interface RunnerSteps {
  compile: RunnerStep | null;
  run: RunnerStep | null;
}

function runnerResult(lines: readonly OutputLine[]): RunnerSteps | null {
  const line = lines.find((entry) => entry.stream === 'stdout' && entry.text.startsWith(`${RESULT_MARKER} `));
  if (!line) return null;
  try {
    const { steps } = JSON.parse(line.text.slice(RESULT_MARKER.length + 1)) as { steps: RunnerStep[] };
    const result = { compile: steps.find((step) => step.name === COMPILE_STEP) ?? null, run: steps.find((step) => step.name === RUN_STEP) ?? null };
    return result.compile || result.run ? result : null;
  } catch {
    return null;
  }
}

async function readOutput(candidates: CandidateFiles, file: string): Promise<{ text: string; cut: boolean }> {
  const bytes = (await candidates.read(file)) ?? Buffer.alloc(0);
  return { text: bytes.subarray(0, MAX_OUTPUT_BYTES).toString('utf8'), cut: bytes.length > MAX_OUTPUT_BYTES };
}

async function fetchFiles(candidates: CandidateFiles, paths: readonly string[]): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const path of paths) {
    const bytes = await candidates.read(normalize(path).replace(/^\/+/, ''));
    if (bytes) files[path] = bytes.toString('base64');
  }
  return files;
}

const stepFailed = (step: RunnerStep) => step.status !== 'Finished' || step.return_code !== 0;

async function commandResult(candidates: CandidateFiles, step: RunnerStep): Promise<{ result: CommandRunResult; cut: boolean }> {
  const [stdout, stderr] = await Promise.all([readOutput(candidates, step.stdout_file), readOutput(candidates, step.stderr_file)]);
  return { result: { status: step.status, execution_time: step.execution_time, return_code: step.return_code, stdout: stdout.text, stderr: stderr.text }, cut: stdout.cut || stderr.cut };
}

/**
 * SandboxFusion's parse_run_status (sandbox/server/sandbox_api.py): a time limit or a non-zero exit in
 * any step → Failed, else Success; a failed compile has no run_result (the program never ran).
 */
function stepsOutcome(steps: RunnerSteps): { status: RunCodeResponse['status']; outcome: RunOutcome } {
  const { compile, run } = steps;
  if (compile && stepFailed(compile)) return { status: 'Failed', outcome: compile.status === 'TimeLimitExceeded' ? 'compile_timeout' : 'compile_error' };
  if (!run) return { status: 'Failed', outcome: 'runtime_error' };
  if (run.status === 'TimeLimitExceeded') return { status: 'Failed', outcome: 'timeout' };
  return run.return_code === 0 ? { status: 'Success', outcome: 'finished' } : { status: 'Failed', outcome: 'runtime_error' };
}

function endedWithoutResult(exit: ExitInfo, lines: readonly OutputLine[]): { outcome: RunOutcome; error: string } {
  const tail = lines.slice(-3).map((line) => line.text.slice(0, 200)).join(' | ');
  const how = exit.infraFailure ? `${exit.infraFailure.category}: ${exit.infraFailure.reason}` : exit.timedOut ? 'the sandbox overran its allowance and was killed' : `exit ${exit.exitCode ?? 'none'}${exit.signal ? `, signal ${exit.signal}` : ''}`;
  const killed = exit.infraFailure?.category === 'killed_externally' || (exit.signal !== null && !exit.timedOut);
  return { outcome: killed ? 'sandbox_killed' : 'sandbox_error', error: `the sandbox ended before the program's result (${how})${tail ? `; last output: ${tail}` : ''}` };
}

export async function runInFreshSandbox(input: SandboxRequestInput): Promise<SandboxRequestResult> {
  const { executor, request } = input;
  const phases: RequestPhases = { ...EMPTY_PHASES };
  const baseline = join(input.requestDir, 'baseline');
  const trial: TrialContext = {
    run: input.run,
    trialId: input.requestId,
    baselineWorkspace: baseline,
    trialDir: join(input.requestDir, 'trial'),
    timeoutMs: (request.compile_timeout + request.run_timeout) * 1000 + SANDBOX_ALLOWANCE_MS,
    controls: { cpus: null, memoryMiB: null },
    budget: null,
  };
  const scratch = input.run.cleanup.register('tempdir', input.requestDir, () => rmSync(input.requestDir, { recursive: true, force: true }));
  let result: Omit<SandboxRequestResult, 'phases'>;
  let teardownError: string | null = null;
  try {
    result = await stageRunCollect(input, trial, baseline, phases);
  } catch (error) {
    result = { response: sandboxError(`sandbench: ${error instanceof Error ? error.message : String(error)}`), outcome: 'sandbox_error', error: error instanceof Error ? error.message : String(error) };
  } finally {
    const teardownStart = process.hrtime.bigint();
    teardownError = await executor.finishTrial(trial).then(() => null, (error: unknown) => `teardown failed (sandbench clean removes what it left): ${error instanceof Error ? error.message : String(error)}`);
    await input.run.cleanup.release(scratch);
    phases.teardown_ms = msSince(teardownStart);
  }
  // The client's answer stands (the program ran); the journal says the sandbox was not dropped cleanly.
  return { ...result, error: teardownError ? [result.error, teardownError].filter(Boolean).join('; ') : result.error, phases };
}

async function stageRunCollect(input: SandboxRequestInput, trial: TrialContext, baseline: string, phases: RequestPhases): Promise<Omit<SandboxRequestResult, 'phases'>> {
  const { executor, request } = input;
  const stageStart = process.hrtime.bigint();
  mkdirSync(trial.trialDir, { recursive: true });
  writeWorkspace(baseline, request, input.recipe);
  const binding = await executor.stageWorkspace(trial);
  phases.stage_ms = msSince(stageStart);

  const running = await executor.launch(trial, { argv: ['/usr/bin/python3', '.runner.py', '.request.json'], env: { PYTHONDONTWRITEBYTECODE: '1' }, stdin: 'none' });
  const killer = input.run.cleanup.register('process', `run-code ${input.requestId}`, () => running.kill('run-code server closing'));
  input.onRunning?.(running);
  const exit = await running.exit;
  input.run.cleanup.forget(killer);
  phases.sandbox_ms = msSince(running.tSpawnNs, exit.tExitNs);
  const start = running.lines.find((line) => line.stream === 'stdout' && line.text === START_MARKER);
  if (start) phases.sandbox_start_ms = msSince(running.tSpawnNs, start.tNs);

  const steps = runnerResult(running.lines);
  if (!steps) {
    const ended = endedWithoutResult(exit, running.lines);
    return { response: sandboxError(`sandbench: ${ended.error}`), ...ended };
  }
  phases.compile_ms = steps.compile ? steps.compile.execution_time * 1000 : null;
  phases.run_ms = steps.run ? steps.run.execution_time * 1000 : null;
  phases.peak_rss_kib = steps.run?.peak_rss_kib ?? null;
  const collectStart = process.hrtime.bigint();
  const candidates = await executor.collect(trial, binding);
  const compiled = steps.compile ? await commandResult(candidates, steps.compile) : null;
  const ran = steps.run ? await commandResult(candidates, steps.run) : null;
  const files = await fetchFiles(candidates, request.fetch_files);
  phases.collect_ms = msSince(collectStart);
  const { status, outcome } = stepsOutcome(steps);
  const message = compiled?.cut || ran?.cut ? `output cut at ${MAX_OUTPUT_BYTES} bytes per stream` : '';
  const response: RunCodeResponse = { status, message, compile_result: compiled?.result ?? null, run_result: ran?.result ?? null, executor_pod_name: null, files };
  return { response, outcome, error: null };
}
