/**
 * Runs a campaign: every entry of the campaign list as one `sandbench run` child process writing its
 * bundle under the campaign directory (finished bundles skipped, started ones continued with
 * `run --resume`), with progress and an ETA across the whole campaign. A child per entry keeps each
 * run's signal handling, cleanup and exit code exactly those of `sandbench run`.
 */
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { overrideFlags, overridesFor, type CampaignEntry, type CampaignList, type CampaignModeName } from '../../harness/campaign/campaign-list.ts';
import { bundleDirOf, bundleStatus, campaignEta, CAMPAIGN_FILES, openCampaignState, writeCampaignState, type CampaignState, type EntryAttempt } from '../../harness/campaign/campaign-state.ts';

/** `run` exits 4 when an arm measured nothing; the bundle is complete all the same. */
const EXIT_EMPTY_ARM = 4;
const EXIT_BAD_INPUT = 2;
/** Shown when an entry has no estimate for this mode. */
const DEFAULT_ESTIMATE_S = 120;

export interface EntryRun {
  exitCode: number | null;
  signal: string | null;
  /** The run finalized a complete bundle but did not exit; the campaign stopped it. */
  stoppedAfterFinish?: boolean;
}

/** How long a run may linger after writing a complete manifest before the campaign stops it. */
const LINGER_AFTER_FINISH_MS = 60_000;

function manifestComplete(bundleDir: string): boolean {
  try {
    return (JSON.parse(readFileSync(join(bundleDir, BUNDLE_FILES.manifest), 'utf8')) as { complete?: unknown }).complete === true;
  } catch {
    return false;
  }
}

/** Runs `sandbench <args>`; lines of its stderr go to onLine, all output to the log file. */
export type RunChild = (args: string[], logPath: string, onLine: (line: string) => void, bundleDir?: string) => Promise<EntryRun>;

/** The child running now, so a SIGINT/SIGTERM sent to the campaign alone reaches it too. */
let current: { kill(signal: NodeJS.Signals): boolean } | null = null;

export const runSandbenchChild: RunChild = async (args, logPath, onLine, bundleDir) => {
  const log = createWriteStream(logPath, { flags: 'a' });
  const child = execa(process.execPath, [join(PROJECT_ROOT, 'bin', 'sandbench.mjs'), ...args], { reject: false, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', cleanup: true });
  current = child;
  child.stdout?.pipe(log, { end: false });
  const lines = createInterface({ input: child.stderr! });
  lines.on('line', (line) => {
    log.write(`${line}\n`);
    onLine(line);
  });
  // A run that wrote its complete bundle but whose process stays alive (seen once here: a density run
  // idle for minutes after its manifest) would stall the whole campaign; stop it after a grace period.
  let finishedSince: number | null = null;
  let stoppedAfterFinish = false;
  const watch = bundleDir
    ? setInterval(() => {
        if (!manifestComplete(bundleDir)) return;
        finishedSince ??= Date.now();
        if (Date.now() - finishedSince < LINGER_AFTER_FINISH_MS) return;
        stoppedAfterFinish = true;
        log.write(`campaign: the run wrote a complete bundle but had not exited ${LINGER_AFTER_FINISH_MS / 1000} s later; stopping it\n`);
        child.kill('SIGTERM');
      }, 5000)
    : null;
  const result = await child;
  if (watch) clearInterval(watch);
  current = null;
  await new Promise<void>((resolve) => log.end(resolve));
  return { exitCode: typeof result.exitCode === 'number' ? result.exitCode : null, signal: result.signal ?? null, stoppedAfterFinish };
};

export interface CampaignRunOptions {
  campaignDir: string;
  list: CampaignList;
  mode: CampaignModeName;
  log: (message: string) => void;
  runChild?: RunChild;
  now?: () => number;
}

export interface CampaignRunResult {
  state: CampaignState;
  /** Wall time of this invocation, seconds. */
  wallSeconds: number;
  /** Entries run (or resumed) in this invocation; the others were finished or skipped. */
  ran: string[];
  skippedFinished: string[];
  interrupted: boolean;
}

const PROGRESS_LINE = /^\[(\d+)\/(\d+)\] .* eta=(\d+)s$/;

const minutes = (s: number) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);

export function runArgs(entry: CampaignEntry, mode: CampaignModeName, bundleDir: string, resume: boolean): string[] {
  return resume ? ['run', '--resume', bundleDir] : ['run', entry.specPaths[mode], '--out', bundleDir, ...overrideFlags(overridesFor(entry, mode))];
}

function attemptOf(run: EntryRun, seconds: number, now: number): EntryAttempt {
  const base = { exit_code: run.exitCode, seconds, finished_at: new Date(now).toISOString() };
  if (run.stoppedAfterFinish) return { ...base, status: 'done', reason: `the run finalized a complete bundle but did not exit; stopped after ${LINGER_AFTER_FINISH_MS / 1000} s` };
  if (run.exitCode === 0) return { ...base, status: 'done', reason: '' };
  if (run.exitCode === EXIT_EMPTY_ARM) return { ...base, status: 'done-with-empty-arms', reason: 'an arm ended with zero valid formal trials (see the bundle)' };
  if (run.signal || run.exitCode === 130 || run.exitCode === 143) return { ...base, status: 'interrupted', reason: `interrupted (${run.signal ?? `exit ${run.exitCode}`}); re-run the campaign to resume` };
  return { ...base, status: 'failed', reason: run.exitCode === EXIT_BAD_INPUT ? 'run refused its input (exit 2; see logs/)' : `run failed (exit ${run.exitCode ?? 'none'}; see logs/)` };
}

export async function runCampaign(options: CampaignRunOptions): Promise<CampaignRunResult> {
  const { campaignDir, list, mode, log } = options;
  const now = options.now ?? Date.now;
  const runChild = options.runChild ?? runSandbenchChild;
  const state = openCampaignState(campaignDir, mode, list);
  mkdirSync(join(campaignDir, CAMPAIGN_FILES.logs), { recursive: true });
  writeCampaignState(campaignDir, state);

  const started = now();
  const active = list.entries.filter((e) => !e[mode].skip);
  for (const entry of list.entries.filter((e) => e[mode].skip)) {
    state.entries[entry.id] = { status: 'skipped', exit_code: null, seconds: 0, reason: `skipped in ${mode === 'quick' ? '--quick' : 'the full campaign'}: ${entry[mode].skip}`, finished_at: new Date(now()).toISOString() };
  }
  const estimateOf = (entry: CampaignEntry) => entry[mode].estimate_s ?? DEFAULT_ESTIMATE_S;
  const statuses = active.map((entry) => ({ entry, status: bundleStatus(bundleDirOf(campaignDir, entry)) }));
  const todo = statuses.filter((s) => s.status !== 'finished');
  const skippedFinished = statuses.filter((s) => s.status === 'finished').map((s) => s.entry.id);
  for (const id of skippedFinished) log(`campaign: ${id}: bundle finished earlier, skipped`);
  log(`campaign: ${todo.length} of ${active.length} entries to run (${mode}); estimated ${minutes(todo.reduce((sum, s) => sum + estimateOf(s.entry), 0))}`);

  const finished: { actual: number; estimate: number }[] = [];
  const ran: string[] = [];
  let interrupted = false;
  // The run in flight stops itself (its bundle stays resumable); the campaign then stops after it.
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    log(`campaign: ${signal}: stopping after the run in flight`);
    current?.kill(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    for (const [index, { entry, status }] of todo.entries()) {
      if (interrupted) break;
      const bundleDir = bundleDirOf(campaignDir, entry);
      const pending = todo.slice(index + 1).map((s) => estimateOf(s.entry));
      const entryStart = now();
      const eta = (remaining: number | null) => minutes(campaignEta({ pendingEstimates: pending, currentRemaining: remaining ?? estimateOf(entry), finished }));
      log(`campaign [${index + 1}/${todo.length}] ${entry.id}: ${status === 'resume' ? 'resuming' : 'starting'} ${entry[mode].spec ?? entry.spec} — elapsed ${minutes((now() - started) / 1000)}, campaign ETA ~${eta(null)}`);
      const run = await runChild(runArgs(entry, mode, bundleDir, status === 'resume'), join(campaignDir, CAMPAIGN_FILES.logs, `${entry.id}.log`), (line) => {
        const progress = PROGRESS_LINE.exec(line);
        log(progress ? `[${entry.id}] ${line} | campaign ETA ~${eta(Number(progress[3]))}` : `[${entry.id}] ${line}`);
      }, bundleDir);
      const seconds = (now() - entryStart) / 1000;
      const attempt = attemptOf(run, seconds, now());
      state.entries[entry.id] = attempt;
      writeCampaignState(campaignDir, state);
      ran.push(entry.id);
      finished.push({ actual: seconds, estimate: estimateOf(entry) });
      log(`campaign [${index + 1}/${todo.length}] ${entry.id}: ${attempt.status} in ${minutes(seconds)}${attempt.reason ? ` (${attempt.reason})` : ''}`);
      if (attempt.status === 'interrupted') {
        interrupted = true;
        break;
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  writeCampaignState(campaignDir, state);
  return { state, wallSeconds: (now() - started) / 1000, ran, skippedFinished, interrupted };
}
