/**
 * Running Harbor 0.25.0 itself in tests: the venv (scripts/build-harbor-venv.sh, built on first use:
 * PyPI only, ~350 MB, 25–90 s here) and the trials a `harbor run` job directory holds, with
 * sandbench's provider journal beside each.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

/** Harbor offline: no PostHog (about 12 s per run otherwise), no litellm cost-map fetch. */
export const HARBOR_OFFLINE_ENV = { HARBOR_TELEMETRY: '0', LITELLM_LOCAL_MODEL_COST_MAP: 'True' } as const;

/** Builds (or finds) the Harbor venv; returns its directory. */
export async function harborVenv(): Promise<string> {
  const built = await execa(join(PROJECT_ROOT, 'scripts', 'build-harbor-venv.sh'), [], { reject: false, timeout: 600_000 });
  if (built.exitCode !== 0) throw new Error(`scripts/build-harbor-venv.sh failed: ${String(built.stderr).slice(-600)}`);
  return String(built.stdout).trim().split('\n').at(-1)!;
}

export interface PhaseWindow {
  startMs: number;
  endMs: number;
}

/**
 * How far a journalled operation may stick out of the Harbor phase that holds it. Both clocks are the
 * host's wall clock, but each side is read at ms resolution: the journal's `t` is an ISO string with ms,
 * and Harbor's µs timestamps parse (Date.parse) to whole ms. That is up to 1 ms of truncation on each
 * side; nothing else separates them (the bridge times an operation between receiving Harbor's request
 * and answering it).
 */
export const CLOCK_TOLERANCE_MS = 2;

/** The host-clock window a journal line covers: it is written when the operation ends, `total_ms` (start) or `ms` after it began. */
export function journalWindow(entry: JournalEntry): PhaseWindow {
  const endMs = Date.parse(entry.t);
  return { startMs: endMs - (entry.total_ms ?? entry.ms ?? 0), endMs };
}

/** How many ms `inner` sticks out of `outer` (0 when it lies inside). */
export function overhangMs(inner: PhaseWindow, outer: PhaseWindow): number {
  return Math.max(0, outer.startMs - inner.startMs, inner.endMs - outer.endMs);
}

export interface JournalEntry {
  op: string;
  t: string;
  backend?: string;
  ms?: number;
  total_ms?: number;
  command?: string | null;
  pss_kib?: number | null;
  workspace_ms?: number;
  prepare_steps?: { dockerfile_line: number; command: string; ms: number }[];
  failures?: string[];
}

export interface HarborTrial {
  dir: string;
  task: string;
  reward: number | null;
  exception: string | null;
  /** Harbor's own phases (epoch ms; its timestamps have µs digits but are taken at ms granularity here). */
  phases: Partial<Record<'environment_setup' | 'agent_setup' | 'agent_execution' | 'verifier', PhaseWindow>>;
  /** sandbench-journal.jsonl: one line per operation. */
  journal: JournalEntry[];
  /** The raw result.json. */
  result: Record<string, unknown>;
}

const PHASES = ['environment_setup', 'agent_setup', 'agent_execution', 'verifier'] as const;

/** The trials of the one job a `harbor run -o jobsDir` wrote, by task name. */
export function harborTrials(jobsDir: string): HarborTrial[] {
  const [job] = readdirSync(jobsDir);
  const jobDir = join(jobsDir, job!);
  return readdirSync(jobDir)
    .filter((name) => existsSync(join(jobDir, name, 'result.json')))
    .map((name) => {
      const dir = join(jobDir, name);
      const result = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8'));
      const journalPath = join(dir, 'sandbench-journal.jsonl');
      const phases: HarborTrial['phases'] = {};
      for (const phase of PHASES) {
        const timing = result[phase] as { started_at: string; finished_at: string } | null;
        if (timing) phases[phase] = { startMs: Date.parse(timing.started_at), endMs: Date.parse(timing.finished_at) };
      }
      return {
        dir,
        task: result.task_name,
        reward: result.verifier_result?.rewards?.reward ?? null,
        exception: result.exception_info?.exception_message ?? null,
        phases,
        journal: existsSync(journalPath) ? readFileSync(journalPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as JournalEntry) : [],
        result,
      };
    })
    .sort((a, b) => a.task.localeCompare(b.task));
}

export interface OracleJobRequest {
  backend: string;
  /** Directories of task directories (Harbor datasets). */
  datasets: string[];
  /** Single task directories, run in the same job. */
  tasks: string[];
  jobsDir: string;
  concurrency: number;
}

export interface OracleJob {
  exitCode: number | undefined;
  /** The tail of Harbor's output, for a failure message. */
  outputTail: string;
  wallMs: number;
  trials: HarborTrial[];
}

/**
 * One `harbor run -a oracle` job on sandbench's provider. The task list goes through a JobConfig file
 * (`-c`) because `-p` takes one path and replaces the config's lists.
 */
export async function runHarborOracle(venv: string, request: OracleJobRequest): Promise<OracleJob> {
  const config = `${request.jobsDir}.config.json`;
  writeFileSync(config, JSON.stringify({ datasets: request.datasets.map((path) => ({ path })), tasks: request.tasks.map((path) => ({ path })) }));
  const startedAt = performance.now();
  const run = await execa(
    join(venv, 'bin', 'harbor'),
    ['run', '-c', config, '-a', 'oracle', '-e', 'sandbench_harbor:SandbenchEnvironment', '--ek', `backend=${request.backend}`, '-y', '-q', '-o', request.jobsDir, '-n', String(request.concurrency)],
    { env: HARBOR_OFFLINE_ENV, reject: false, timeout: 400_000, all: true },
  );
  const wallMs = performance.now() - startedAt;
  return { exitCode: run.exitCode, outputTail: String(run.all).slice(-1500), wallMs, trials: existsSync(request.jobsDir) ? harborTrials(request.jobsDir) : [] };
}

/** A trial's Harbor phase durations in ms, for a log line. */
export function phaseDurationsMs(trial: HarborTrial): Partial<Record<keyof HarborTrial['phases'], number>> {
  return Object.fromEntries(Object.entries(trial.phases).map(([phase, window]) => [phase, window.endMs - window.startMs]));
}
