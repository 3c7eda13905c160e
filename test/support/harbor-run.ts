/**
 * Running Harbor 0.25.0 itself in tests: the venv (scripts/build-harbor-venv.sh, built on first use:
 * PyPI only, ~350 MB, 25–90 s here) and the trials a `harbor run` job directory holds, with
 * sandbench's provider journal beside each.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

export interface JournalEntry {
  op: string;
  t: string;
  ms?: number;
  total_ms?: number;
  command?: string | null;
  pss_kib?: number | null;
  prepare_steps?: { dockerfile_line: number; command: string; ms: number }[];
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
