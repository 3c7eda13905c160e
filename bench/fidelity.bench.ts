/**
 * `npm run bench -- fidelity`: is sandbench's timing floor within 15% of hyperfine's (issue 14)?
 * One interleaved session: for each round and each command (order rotated per round), a sandbench
 * run (host backend, the `command` kind, CPUs pinned to 0,1 — completion_ms of every ok trial) and
 * `taskset -c 0,1 hyperfine -N` on the same argv (its per-run times). Prints both medians, the
 * ratio sandbench/hyperfine with a 95% bootstrap CI, and the verdict against ≤ 1.15 and ≥ 0.95
 * (below 0.95 would mean sandbench misses part of the launch: a timing bug, not speed).
 * Commands: /bin/true, python3 -c pass, git --version, and the exact staged launch argv of a
 * prepared shell (unshare → mount overlay → bwrap → sh printing the shell-ready markers).
 * `git --version primed` runs the command kind with `command.prime_runs: 3` (the command itself,
 * untimed, right before each timed run, as hyperfine's --warmup and back-to-back loop leave it): the
 * plain row shows what a trial after the harness's bookkeeping costs, the primed row that the timing
 * path adds nothing once the command is as warm as in hyperfine's loop.
 * The CI resamples whole rounds (each round is one sandbench run and one hyperfine run per command),
 * so the run-to-run variation both tools show on this VM is in the interval, not only the within-run one.
 * One control row, not judged: /bin/true cold on both sides — sandbench without the launcher's
 * warm-up launches, hyperfine with a 30 ms pause (`--prepare 'sleep 0.03'`) before each run — which
 * shows the pause penalty is the machine's, not the harness's (launcher/PROTOCOL.md, "Warm-up launches").
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { median } from 'simple-statistics';
import type { TrialContext } from '../harness/contracts/executor.ts';
import { ensureTaskImage } from '../harness/image/ensure-image.ts';
import { runSpec } from '../harness/run/run-spec.ts';
import { ImageSpecSchema } from '../harness/spec/schema.ts';
import { stateDir } from '../harness/state-dir.ts';
import { createPrng, percentileInterval } from '../harness/stats/bootstrap.ts';
import { runWiring } from '../cli/wiring.ts';
import { stagedLaunchArgv } from '../executors/staged.ts';
import { timingSession } from '../executors/launch/timing-session.ts';

export const FIDELITY_GOAL = { maxRatio: 1.15, minRatio: 0.95 } as const;
const CPUS = '0,1';
const SHELL_READY_SCRIPT = `printf '%s\\n' 'REFERENCE_READY'; printf '%s\\n' 'REFERENCE_RESULT {"mode":"ready","correctness":"passed"}'`;

interface Command {
  label: string;
  argv: string[];
  /** `command.prime_runs` of the sandbench run (hyperfine's own loop and --warmup already prime). */
  primeRuns?: number;
  /** A control row: printed with its ratio, not judged against the goal. */
  control?: { sandbenchEnv: Record<string, string>; hyperfineArgs: string[] };
}

export interface FidelityRow {
  label: string;
  sandbench: { n: number; failed: number; medianMs: number };
  hyperfine: { n: number; medianMs: number };
  ratio: number;
  ci95: { low: number; high: number };
  /** Rounds the CI resampled. */
  rounds: number;
  verdict: 'within goal' | 'ABOVE 1.15' | 'BELOW 0.95 (timing bug?)' | 'outside by the point, CI overlaps the goal' | 'control (not judged)';
}

/** POSIX single quotes: hyperfine -N splits its command string with shell-words rules. */
const quote = (word: string) => (/^[A-Za-z0-9_./=:,@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

async function commands(scratch: string): Promise<Command[]> {
  const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
  // A prepared staged trial: baseline plus empty upper/work/merged; the shell-ready task writes nothing,
  // so every launch (sandbench's and hyperfine's) mounts the same fresh overlay in its own namespace.
  const trialDir = join(scratch, 'staged-trial');
  const baselineWorkspace = join(scratch, 'baseline');
  for (const dir of [baselineWorkspace, join(trialDir, 'upper'), join(trialDir, 'work'), join(trialDir, 'merged')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(baselineWorkspace, 'README'), 'fidelity bench workspace\n');
  const trial = { trialDir, baselineWorkspace, controls: { cpus: null, memoryMiB: null }, budget: null } as unknown as TrialContext;
  const staged = stagedLaunchArgv(image.rootfsDir, trial, { argv: ['/bin/sh', '-c', SHELL_READY_SCRIPT], env: {}, stdin: 'none' });
  return [
    { label: '/bin/true', argv: ['/bin/true'] },
    { label: 'python3 -c pass', argv: ['python3', '-c', 'pass'] },
    { label: 'git --version', argv: ['git', '--version'] },
    { label: 'git --version primed', argv: ['git', '--version'], primeRuns: 3 },
    { label: 'staged shell launch', argv: staged },
    { label: '/bin/true cold (control)', argv: ['/bin/true'], control: { sandbenchEnv: { SANDBENCH_LAUNCH_WARMUPS: '0' }, hyperfineArgs: ['--prepare', 'sleep 0.03'] } },
  ];
}

/** The run loop prints one progress line per trial on a non-TTY stderr; the bench prints its own table. */
async function withoutProgressLines<T>(body: () => Promise<T>): Promise<T> {
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) =>
    typeof chunk === 'string' && /^\[\d+\/\d+\] /.test(chunk) ? true : (write as (...args: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stderr.write;
  try {
    return await body();
  } finally {
    process.stderr.write = write;
  }
}

/** Environment overrides for one sandbench run (the control row turns the launcher's warm-ups off). */
async function withEnv<T>(env: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    return await body();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

async function sandbenchTimes(scratch: string, command: Command, trials: number, warmups: number, seed: number): Promise<{ times: number[]; failed: number }> {
  const dir = mkdtempSync(join(scratch, 'run-'));
  const specPath = join(dir, 'spec.yaml');
  writeFileSync(
    specPath,
    `name: bench-fidelity
experiment: command
arms: [{ backend: host }]
warmups: ${warmups}
trials: ${trials}
seed: ${seed}
timeout: 60s
controls: { cpus: "${CPUS}" }
task: { argv: ${JSON.stringify(command.argv)} }
${command.primeRuns ? `command: { prime_runs: ${command.primeRuns} }\n` : ''}`,
  );
  const result = await withEnv(command.control?.sandbenchEnv ?? {}, () =>
    withoutProgressLines(async () => runSpec({ specPath, overrides: {}, out: join(dir, 'bundle'), requireAll: true, log: () => undefined, wiring: await runWiring() })),
  );
  const measured = result.records.filter((r) => !r.warmup);
  const ok = measured.filter((r) => r.outcome === 'ok' && typeof r.completion_ms === 'number');
  // Every trial must say how it was timed, and one run must not mix paths.
  const paths = new Set(ok.map((record) => (record.facts as { timing?: { path?: string } } | undefined)?.timing?.path ?? 'unrecorded'));
  if (paths.size > 1 || paths.has('unrecorded')) throw new Error(`fidelity: trials were timed by ${[...paths].join(' and ')}`);
  rmSync(dir, { recursive: true, force: true });
  return { times: ok.map((r) => r.completion_ms as number), failed: measured.length - ok.length };
}

async function hyperfineTimes(scratch: string, command: Command, runs: number, warmups: number): Promise<number[]> {
  const out = join(scratch, `hf-${Date.now()}.json`);
  const extra = command.control?.hyperfineArgs ?? [];
  // An empty directory, as a sandbench trial's workspace is: git, for one, looks for a repository in its cwd.
  const cwd = mkdtempSync(join(scratch, 'hf-cwd-'));
  await execa('taskset', ['-c', CPUS, 'hyperfine', '-N', '--style', 'none', '--warmup', String(warmups), '--runs', String(runs), ...extra, '--export-json', out, command.argv.map(quote).join(' ')], {
    // The host executor's trial environment, exactly (executors/host.ts).
    env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/tmp', LANG: 'C.UTF-8' },
    extendEnv: false,
    cwd,
  });
  const parsed = JSON.parse(readFileSync(out, 'utf8')) as { results: { times: number[]; exit_codes: number[] }[] };
  const result = parsed.results[0]!;
  if (result.exit_codes.some((code) => code !== 0)) throw new Error(`fidelity: hyperfine saw non-zero exits for ${command.label}`);
  return result.times.map((seconds) => seconds * 1000);
}

/** One round's samples of one command: one sandbench run and one hyperfine run. */
interface RoundSamples {
  sandbench: number[];
  hyperfine: number[];
}

/**
 * Ratio of pooled medians, with a 95% percentile CI from resampling whole rounds: a round's two runs
 * share the machine's state of that moment, and on this VM that state moves both tools by ±15% from
 * run to run, which a bootstrap over pooled samples would hide.
 */
export function roundBootstrapRatio(rounds: readonly RoundSamples[], resamples: number, seed: number): { ratio: number; ci95: { low: number; high: number } } {
  const pooled = (pick: (r: RoundSamples) => number[], set: readonly RoundSamples[]) => median(set.flatMap(pick));
  const ratioOf = (set: readonly RoundSamples[]) => pooled((r) => r.sandbench, set) / pooled((r) => r.hyperfine, set);
  const prng = createPrng(seed);
  const replicates = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) replicates[b] = ratioOf(Array.from({ length: rounds.length }, () => rounds[prng.int(0, rounds.length - 1)]!));
  return { ratio: ratioOf(rounds), ci95: percentileInterval(replicates.sort()) };
}

/**
 * Against the goal band: inside it by the point estimate, or outside it only when the whole round
 * CI is (a point just outside with a CI back inside is this VM's run-to-run noise, not a verdict).
 */
export function judge(ratio: number, ci95: { low: number; high: number }): FidelityRow['verdict'] {
  if (ratio >= FIDELITY_GOAL.minRatio && ratio <= FIDELITY_GOAL.maxRatio) return 'within goal';
  if (ci95.low > FIDELITY_GOAL.maxRatio) return 'ABOVE 1.15';
  if (ci95.high < FIDELITY_GOAL.minRatio) return 'BELOW 0.95 (timing bug?)';
  return 'outside by the point, CI overlaps the goal';
}

function row(command: Command, rounds: readonly RoundSamples[], failed: number, seed: number): FidelityRow {
  const label = command.label;
  const { ratio, ci95 } = roundBootstrapRatio(rounds, 5000, seed);
  const s = median(rounds.flatMap((r) => r.sandbench));
  const h = median(rounds.flatMap((r) => r.hyperfine));
  const verdict = command.control ? 'control (not judged)' : judge(ratio, ci95);
  const n = (pick: (r: RoundSamples) => number[]) => rounds.reduce((sum, r) => sum + pick(r).length, 0);
  return { label, sandbench: { n: n((r) => r.sandbench), failed, medianMs: s }, hyperfine: { n: n((r) => r.hyperfine), medianMs: h }, ratio, ci95, verdict, rounds: rounds.length };
}

export async function measureFidelity(rounds = 20, perRound = 10, warmups = 3): Promise<{ rows: FidelityRow[]; load: number[]; floor: string }> {
  const which = await execa('hyperfine', ['--version'], { reject: false });
  if (which.failed) throw new Error('fidelity: hyperfine is not installed (apt-get install hyperfine; scripts/setup.sh does)');
  const scratch = mkdtempSync(join(tmpdir(), 'sandbench-fidelity-'));
  try {
    const list = await commands(scratch);
    const session = await timingSession();
    const floor =
      session.path === 'launcher'
        ? `launcher floor (/bin/true, n=${session.calibration.n}, ${session.calibration.warmupLaunches} warm-up launches before each) median ${session.calibration.medianMs.toFixed(3)} ms, MAD ${session.calibration.madMs.toFixed(3)} ms`
        : `Node path (${session.reason})`;
    const collected = list.map(() => ({ rounds: [] as RoundSamples[], failed: 0 }));
    const load: number[] = [loadavg()[0]!];
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < list.length; k++) {
        const index = (k + round) % list.length;
        const command = list[index]!;
        // Alternate which tool goes first, so neither always inherits the other's warm caches.
        const order = round % 2 === 0 ? ['sandbench', 'hyperfine'] : ['hyperfine', 'sandbench'];
        const samples: RoundSamples = { sandbench: [], hyperfine: [] };
        for (const tool of order) {
          if (tool === 'sandbench') {
            const got = await sandbenchTimes(scratch, command, perRound, warmups, 100 + round);
            samples.sandbench.push(...got.times);
            collected[index]!.failed += got.failed;
          } else samples.hyperfine.push(...(await hyperfineTimes(scratch, command, perRound, warmups)));
        }
        collected[index]!.rounds.push(samples);
      }
      load.push(loadavg()[0]!);
    }
    return { rows: list.map((command, i) => row(command, collected[i]!.rounds, collected[i]!.failed, 7 + i)), load, floor };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function formatFidelity(result: Awaited<ReturnType<typeof measureFidelity>>): string {
  // Above one runnable task per CPU the comparison measures the scheduler: hyperfine's tight loop is a
  // CPU hog to CFS while a trial launched after the harness's bookkeeping wakes with sleeper credit.
  const maxLoad = Math.max(...result.load);
  const warning = maxLoad > availableParallelism() ? [`  WARNING: load average reached ${maxLoad.toFixed(1)} on ${availableParallelism()} CPUs; under load the verdicts below say little (re-run on a quiet machine)`] : [];
  const lines = [
    `fidelity: sandbench (host, command kind, cpus ${CPUS}) vs taskset -c ${CPUS} hyperfine -N, interleaved; ${result.floor}; load average ${result.load.map((l) => l.toFixed(1)).join(' → ')}`,
    ...warning,
    `  ${'command'.padEnd(24)} ${'sandbench P50'.padStart(14)} ${'hyperfine P50'.padStart(14)} ${'ratio'.padStart(6)}  95% CI          verdict (goal ${FIDELITY_GOAL.minRatio}–${FIDELITY_GOAL.maxRatio})`,
  ];
  for (const r of result.rows) {
    lines.push(
      `  ${r.label.padEnd(24)} ${`${r.sandbench.medianMs.toFixed(3)} ms`.padStart(14)} ${`${r.hyperfine.medianMs.toFixed(3)} ms`.padStart(14)} ${r.ratio.toFixed(3).padStart(6)}  [${r.ci95.low.toFixed(3)}, ${r.ci95.high.toFixed(3)}]  ${r.verdict}  (n=${r.sandbench.n}${r.sandbench.failed ? `, ${r.sandbench.failed} failed` : ''} / ${r.hyperfine.n}, ${r.rounds} rounds)`,
    );
  }
  return lines.join('\n');
}

export async function runFidelityBench(): Promise<void> {
  console.log(formatFidelity(await measureFidelity()));
}

if (import.meta.url === `file://${process.argv[1]}`) await runFidelityBench();
