/**
 * Harness-scale bench (issue 33): the harness alone, at RL scale. The real rollout loop (cell
 * workers, budget cgroup, model service process, scratch dirs, candidate extraction, trajectory
 * parse, the bundle's store, the scoring workspace, score parsing, rm -rf, the fsynced journal,
 * analysis) runs against `bench-standin` (bench/harness-standin-backend.ts), a benchmark backend that
 * spawns and copies nothing and replays rollouts recorded once on the real host backend.
 *
 * Per C, in a fresh child process (so RSS and CPU are that C's alone, after one warm-up cell):
 * - harness CPU per rollout: the cell's figure as every rollout bundle records it (rollout-summary
 *   harness_cpu_ms_per_rollout: process.cpuUsage of the harness, every thread, + the launcher
 *   co-process's own utime+stime; the commands the launcher runs — cp -a, rm -rf — excluded and
 *   printed apart as "helper children"), and the whole run's in-process CPU per rollout (start-up,
 *   journal, analysis, report included);
 * - RSS per in-flight rollout: (peak RSS while the cell ran − RSS before it) ÷ peak rollouts in
 *   flight (sampled every 100 ms);
 * - event-loop lag P50/P99: how late the loop ran a 10 ms timer (perf_hooks.monitorEventLoopDelay
 *   records the whole interval between its firings, so an idle loop reads 10 ms: the lag is that
 *   interval − 10 ms), over the cell only;
 * - journal records per second: the run's own records re-appended through the real JournalWriter
 *   (write + fsync per record, the run loop's durability) into a file beside the bundle's;
 * - the machine's CPU busy fraction over the cell (/proc/stat, every process).
 * Then the scaling exponent b of cost ∝ C^b (log-log least squares, simple-statistics): total cell
 * CPU with attempts ∝ C (b ≈ 1 is linear; > 1 means something grows with C per rollout) and the
 * peak harness RSS.
 * The offered load is fixed: each stand-in sandbox holds for C × HOLD_MS_PER_C ms, so C rollouts are
 * in flight at one offered rate at every C (C ÷ hold = 1000 / HOLD_MS_PER_C rollouts/s).
 * No PSS sampling in the cells (a stand-in has no process to sample); the recording run samples PSS
 * beside the cgroup peak to show the two methods' agreement. Printed, never asserted.
 * Each C runs twice, with the fixture root (per-attempt scratch and workspaces) on the default root
 * and on tmpfs, because what an inode costs is the filesystem's (harness/provenance/fixture-filesystem.ts): the two rows
 * separate the harness's own work from what the disk charges it for the same work.
 * Run: `npm run bench -- harness-scale` (SANDBENCH_SCALE_C=16,128,1000 to choose the levels,
 * SANDBENCH_SCALE_FIXTURES=default,tmpfs the fixture roots).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Session } from 'node:inspector';
import { linearRegression, quantileSorted, rSquared } from 'simple-statistics';
import { runWiring } from '../cli/wiring.ts';
import { parseCsv } from '../harness/bundle/csv.ts';
import { JournalWriter, readJournal } from '../harness/journal/journal.ts';
import type { RunWiring } from '../harness/contracts/wiring.ts';
import type { ExecutorDescriptor } from '../executors/backend-descriptor.ts';
import { executorOf } from '../executors/registry.ts';
import { harnessHelperPids } from '../executors/launch/timing-session.ts';
import { runSpec } from '../harness/run/run-spec.ts';
import { fixtureRoot } from '../harness/state-dir.ts';
import { describeFilesystem, fixtureFilesystem } from '../harness/provenance/fixture-filesystem.ts';
import { loadRecordings, RecordingStore, standinDescriptor, STANDIN_BACKEND, type Recordings } from './harness-standin-backend.ts';

export const HARNESS_SCALE_TARGETS = { cpuMsPerRollout: 2, rssKiBPerInFlight: 200, lagP99MsAtC1000: 20, exponent: 1.1 };
const DEFAULT_LEVELS = [16, 128, 1000, 4000];
/** Each worker runs this many attempts, so a cell's attempts ∝ C and the total-cost exponent means something. */
const ROUNDS = 3;
/** Stand-in hold per unit of C: offered load 1000 / HOLD_MS_PER_C rollouts/s at every C. */
const HOLD_MS_PER_C = 8;
/** monitorEventLoopDelay's timer interval: what an idle loop reads, subtracted to give the lag. */
const LAG_TIMER_MS = 10;
/** The smallest RSS growth (KiB) that enters the RSS scaling fit. */
const RSS_FIT_MIN_KIB = 4096;
/** Where a cell's fixture root goes: the harness's default root, or a directory on tmpfs. */
const FIXTURE_PLACEMENTS = ['default', 'tmpfs'] as const;
type FixturePlacement = (typeof FIXTURE_PLACEMENTS)[number];

/** A wiring whose backends include the given benchmark descriptors (never the registry's). */
async function benchWiring(extra: readonly ExecutorDescriptor[]): Promise<RunWiring> {
  const base = await runWiring();
  const byName = new Map(extra.map((d) => [d.name, d]));
  return {
    ...base,
    specKinds: { ...base.specKinds, backends: { names: [...base.specKinds.backends.names, ...byName.keys()], traits: (name) => byName.get(name)?.traits ?? base.specKinds.backends.traits(name) } },
    executorsFor: async (spec) => {
      const builtins = await base.executorsFor({ ...spec, arms: spec.arms.filter((arm) => !byName.has(arm.backend)) });
      return (backend, variant, build) => (byName.has(backend) ? executorOf(byName.get(backend)!, variant, build) : builtins(backend, variant, build));
    },
  };
}

/** A one-arm rollout spec on a benchmark backend; no PSS sampling unless `rollout` sets pss_interval. */
function writeSpec(dir: string, name: string, backend: string, rollout: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `name: ${name}\nexperiment: rollout\narms: [{ backend: ${backend} }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 600s\nrollout:\n  scoring_backend: ${backend}\n  retain: none\n${rollout}`);
  return path;
}

/**
 * Item 2's agreement: on the recording run's real host attempts both methods ran on the same
 * attempt — the kernel peak of the attempt's own cgroup (the memory figure) and Σ PSS of its
 * process tree sampled every 100 ms — so their ratio per attempt shows how far they agree.
 */
function memoryAgreement(bundle: string): string {
  const pairs = readJournal(join(bundle, 'journal.jsonl')).records
    .filter((r) => r.outcome === 'ok' && r.metrics.memory_peak_bytes !== undefined && r.metrics.pss_peak_kib !== undefined)
    .map((r) => ({ ratio: (r.metrics.pss_peak_kib! * 1024) / r.metrics.memory_peak_bytes!, method: String(r.facts.memory_method) }));
  if (pairs.length === 0) return 'no attempt has both figures';
  const ratios = pairs.map((p) => p.ratio).sort((a, b) => a - b);
  const q = (p: number) => quantileSorted(ratios, p).toFixed(2);
  return `PSS ÷ cgroup peak per attempt: median ${q(0.5)} (P10 ${q(0.1)}, P90 ${q(0.9)}), n = ${pairs.length} attempts (methods: ${[...new Set(pairs.map((p) => p.method))].join(', ')} vs process-tree-pss every 100 ms)`;
}

/** One real host rollout per script task (task × right/wrong), recorded for the stand-in to replay. */
async function record(dir: string): Promise<Recordings> {
  const store = new RecordingStore();
  const spec = writeSpec(dir, 'record', store.descriptor().name, '  attempts: 96\n  concurrency: [8]\n  model: [{ slots: 8, base_ms: 2 }]\n  pss_interval: 100ms\n');
  await runSpec({ specPath: spec, overrides: {}, out: join(dir, 'record'), requireAll: true, log: () => undefined, wiring: await benchWiring([store.descriptor()]) });
  console.log(`harness-scale: memory methods on the recording run's host attempts: ${memoryAgreement(join(dir, 'record'))}`);
  return store.recordings;
}

interface CellFigures {
  c: number;
  fixtures: FixturePlacement;
  /** The fixture root's filesystem, as describeFilesystem prints it. */
  fixtureFs: string;
  planned: number;
  completed: number;
  failures: string;
  rewardMean: number;
  wallMs: number;
  throughput: number;
  cellCpuMsPerRollout: number;
  cellUserMsPerRollout: number;
  cellSystemMsPerRollout: number;
  launcherCpuMsPerRollout: number;
  helperChildrenCpuMsPerRollout: number;
  wholeCpuMsPerRollout: number;
  peakInFlight: number;
  rssBeforeKiB: number;
  rssPeakKiB: number;
  rssKiBPerInFlight: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  lagSamples: number;
  journalRecordsPerS: number;
  journalRecords: number;
  machineBusyFraction: number;
  load: [number, number];
}

/** The machine's busy and total jiffies (/proc/stat first line). */
function machineJiffies(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

/** CPU of what the launcher ran and reaped (cutime + cstime, ms): the helpers' children (cp -a, rm -rf). */
function launcherChildrenMs(): number {
  return harnessHelperPids().reduce((sum, pid) => {
    const rest = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return sum + (Number(rest[13]) + Number(rest[14])) * 10;
  }, 0);
}

/** Re-append the run's records through the journal writer (write + fsync each), timed. */
function journalRate(bundle: string): { perS: number; n: number } {
  const records = readJournal(join(bundle, 'journal.jsonl')).records;
  const path = join(bundle, 'journal-rate.jsonl');
  const writer = new JournalWriter(path);
  const t0 = process.hrtime.bigint();
  for (const record of records) writer.append(record);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  writer.close();
  rmSync(path);
  return { perS: records.length / seconds, n: records.length };
}

/**
 * SANDBENCH_SCALE_PROFILE=<dir>: a V8 CPU profile of the measured cell's window only (the same window
 * as the CPU and lag figures), written as <dir>/harness-scale-c<C>.cpuprofile; `node --cpu-prof` on
 * the child would also profile start-up, the warm-up cell, analysis and the report.
 */
function cellProfiler(c: number): { start(): void; stop(): Promise<void> } {
  const dir = process.env.SANDBENCH_SCALE_PROFILE;
  if (!dir) return { start: () => undefined, stop: async () => undefined };
  const session = new Session();
  session.connect();
  const post = (method: string) => new Promise<unknown>((resolve, reject) => session.post(method, (error, result) => (error ? reject(error) : resolve(result))));
  let started: Promise<unknown> | null = null;
  return {
    start: () => {
      started = post('Profiler.enable').then(() => post('Profiler.start'));
    },
    stop: async () => {
      if (!started) return;
      await started;
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(join(dir, `harness-scale-c${c}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Child: a warm-up cell, then the measured cell at C. */
async function measureCell(c: number, fixtures: FixturePlacement, recordings: Recordings, dir: string): Promise<CellFigures> {
  const attempts = ROUNDS * c;
  let inFlight = 0;
  let peakInFlight = 0;
  let finished = 0;
  let measuring = false;
  const lag = monitorEventLoopDelay({ resolution: LAG_TIMER_MS });
  let rssBefore = 0;
  let rssPeak = 0;
  let rssTimer: NodeJS.Timeout | null = null;
  let jiffies = machineJiffies();
  const window = { startNs: 0n, endNs: 0n };
  let holdMs = 50;
  const profiler = cellProfiler(c);
  let profiled: Promise<void> = Promise.resolve();
  const standin = standinDescriptor({ recordings, agentHoldMs: () => holdMs });
  const observed: ExecutorDescriptor = {
    ...standin,
    create: (variant, build) => {
      const inner = standin.create(variant, build);
      return {
        ...inner,
        async stageWorkspace(trial) {
          if (measuring && !trial.trialId.endsWith('-score')) {
            if (rssTimer === null) {
              rssBefore = process.memoryUsage.rss();
              rssPeak = rssBefore;
              rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 100);
              jiffies = machineJiffies();
              window.startNs = process.hrtime.bigint();
              lag.enable();
              profiler.start();
            }
            peakInFlight = Math.max(peakInFlight, ++inFlight);
          }
          return inner.stageWorkspace(trial);
        },
        async finishTrial(trial) {
          await inner.finishTrial(trial);
          if (measuring && !trial.trialId.endsWith('-score')) {
            inFlight--;
            if (++finished === attempts) {
              lag.disable();
              clearInterval(rssTimer!);
              window.endNs = process.hrtime.bigint();
              profiled = profiler.stop();
            }
          }
        },
      };
    },
  };
  const wiring = await benchWiring([observed]);
  const run = async (name: string, n: number, cc: number) => {
    const spec = writeSpec(dir, name, STANDIN_BACKEND, `  attempts: ${n}\n  concurrency: [${cc}]\n  model: [{ slots: 4, base_ms: 1 }]\n`);
    const out = join(dir, name);
    const cpu = process.cpuUsage();
    await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring });
    const used = process.cpuUsage(cpu);
    return { out, wholeMs: (used.user + used.system) / 1000 };
  };
  await run('warmup', 64, 16);
  measuring = true;
  holdMs = c * HOLD_MS_PER_C;
  const load0 = loadavg()[0]!;
  const children0 = launcherChildrenMs();
  const { out, wholeMs } = await run(`scale-c${c}`, attempts, c);
  const children = launcherChildrenMs() - children0;
  await profiled;
  const machine = machineJiffies();
  const row = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows[0] as Record<string, string>;
  const journal = journalRate(out);
  const lateMs = (intervalNs: number) => Math.max(0, intervalNs / 1e6 - LAG_TIMER_MS);
  return {
    c,
    fixtures,
    fixtureFs: describeFilesystem(fixtureFilesystem(fixtureRoot())),
    planned: Number(row.planned),
    completed: Number(row.completed),
    failures: row.failures ?? '',
    rewardMean: Number(row.reward_mean),
    wallMs: Number(window.endNs - window.startNs) / 1e6,
    throughput: Number(row.throughput_rps),
    cellCpuMsPerRollout: Number(row.harness_cpu_ms_per_rollout),
    cellUserMsPerRollout: Number(row.harness_cpu_user_ms_per_rollout),
    cellSystemMsPerRollout: Number(row.harness_cpu_system_ms_per_rollout),
    launcherCpuMsPerRollout: Number(row.harness_cpu_helpers_ms_per_rollout),
    helperChildrenCpuMsPerRollout: children / attempts,
    wholeCpuMsPerRollout: wholeMs / attempts,
    peakInFlight,
    rssBeforeKiB: rssBefore / 1024,
    rssPeakKiB: rssPeak / 1024,
    rssKiBPerInFlight: (rssPeak - rssBefore) / 1024 / Math.max(1, peakInFlight),
    lagP50Ms: lateMs(lag.percentile(50)),
    lagP99Ms: lateMs(lag.percentile(99)),
    lagMaxMs: lateMs(lag.max),
    lagSamples: lag.count,
    journalRecordsPerS: journal.perS,
    journalRecords: journal.n,
    machineBusyFraction: (machine.busy - jiffies.busy) / Math.max(1, machine.total - jiffies.total),
    load: [load0, loadavg()[0]!],
  };
}

const fmt = (v: number, digits = 2) => (Number.isFinite(v) ? v.toFixed(digits) : 'n/a');

/** b and R² of log(y) = a + b·log(x). */
function exponent(points: readonly [number, number][]): { b: number; r2: number } {
  const logs = points.map(([x, y]): [number, number] => [Math.log(x), Math.log(y)]);
  const line = linearRegression(logs);
  return { b: line.m, r2: rSquared(logs, (x) => line.b + line.m * x) };
}

/**
 * Run one C in a fresh process (its RSS and CPU are that C's alone); its last stdout line is the JSON
 * figures. `tmpfs` points the child's fixture root (SANDBENCH_FIXTURES) at a directory on /dev/shm.
 */
function measureInChild(c: number, fixtures: FixturePlacement, recordingsPath: string, dir: string): CellFigures | { c: number; error: string } {
  const tmpfsRoot = fixtures === 'tmpfs' ? mkdtempSync('/dev/shm/sandbench-scale-fixtures-') : null;
  const env = tmpfsRoot ? { ...process.env, SANDBENCH_FIXTURES: tmpfsRoot } : process.env;
  try {
    const stdout = execFileSync(process.execPath, ['--max-old-space-size=16384', '--import', 'tsx', new URL(import.meta.url).pathname, '--child', String(c), fixtures, recordingsPath, dir], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'inherit'], env });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as CellFigures;
  } catch (error) {
    return { c, error: (error as Error).message.split('\n')[0]! };
  } finally {
    if (tmpfsRoot) rmSync(tmpfsRoot, { recursive: true, force: true });
  }
}

/** SANDBENCH_SCALE_FIXTURES: a comma list of placements; both by default. */
function fixturePlacements(value = process.env.SANDBENCH_SCALE_FIXTURES): FixturePlacement[] {
  if (!value) return [...FIXTURE_PLACEMENTS];
  const asked = value.split(',').map((entry) => entry.trim());
  const unknown = asked.filter((entry) => !(FIXTURE_PLACEMENTS as readonly string[]).includes(entry));
  if (unknown.length > 0) throw new Error(`SANDBENCH_SCALE_FIXTURES: unknown placement ${unknown.join(', ')}; use a comma list of ${FIXTURE_PLACEMENTS.join(', ')}`);
  return asked as FixturePlacement[];
}

function printTable(rows: readonly CellFigures[]): void {
  const head = ['C', 'fixture root', 'n ok/planned', 'rollouts/s', 'CPU ms/rollout (cell: user+sys)', 'launcher', 'whole run', 'helper children', 'RSS KiB/in-flight', 'peak in flight', 'lag P50/P99/max ms (n)', 'journal rec/s (n)', 'machine busy', 'reward'];
  const body = rows.map((r) => [
    String(r.c), r.fixtures, `${r.completed}/${r.planned}${r.failures ? ` (${r.failures})` : ''}`, fmt(r.throughput, 1), `${fmt(r.cellCpuMsPerRollout)} (${fmt(r.cellUserMsPerRollout)}+${fmt(r.cellSystemMsPerRollout)})`, fmt(r.launcherCpuMsPerRollout), fmt(r.wholeCpuMsPerRollout), fmt(r.helperChildrenCpuMsPerRollout),
    fmt(r.rssKiBPerInFlight, 0), String(r.peakInFlight), `${fmt(r.lagP50Ms, 1)}/${fmt(r.lagP99Ms, 1)}/${fmt(r.lagMaxMs, 0)} (${r.lagSamples})`, `${fmt(r.journalRecordsPerS, 0)} (${r.journalRecords})`, `${fmt(r.machineBusyFraction * 100, 0)}%`, fmt(r.rewardMean, 3),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  for (const row of [head, ...body]) console.log(`| ${row.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`);
}

export async function runHarnessScaleBench(levels = (process.env.SANDBENCH_SCALE_C ?? '').split(',').filter(Boolean).map(Number)): Promise<CellFigures[]> {
  const cLevels = levels.length > 0 ? levels : DEFAULT_LEVELS;
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-harness-scale-'));
  try {
    const load = loadavg()[0]!;
    // SANDBENCH_SCALE_RECORDINGS=<file>: reuse (or keep) the recording run's output across bench runs.
    const recordingsPath = process.env.SANDBENCH_SCALE_RECORDINGS ?? join(dir, 'recordings.json');
    const recordings = existsSync(recordingsPath) ? loadRecordings(recordingsPath) : await record(dir);
    writeFileSync(recordingsPath, JSON.stringify(recordings));
    console.log(`harness-scale: recorded ${Object.keys(recordings).length} script tasks on host (${Object.keys(recordings).sort().join(', ')})`);
    const placements = fixturePlacements();
    const rows = measureLevels(cLevels, placements, recordingsPath, dir);
    printTable(rows);
    for (const placement of placements) printScaling(placement, rows.filter((r) => r.fixtures === placement));
    console.log(`harness-scale: targets ≤ ${HARNESS_SCALE_TARGETS.cpuMsPerRollout} ms CPU per rollout at every C, ≤ ${HARNESS_SCALE_TARGETS.rssKiBPerInFlight} KiB RSS per in-flight rollout, lag P99 ≤ ${HARNESS_SCALE_TARGETS.lagP99MsAtC1000} ms at C=1000. One cell per C (n = its attempts): no CI; repeat the bench for spread`);
    console.log(`harness-scale: lag = how late a ${LAG_TIMER_MS} ms timer ran (monitorEventLoopDelay's interval − ${LAG_TIMER_MS} ms; an idle loop reads 0)`);
    console.log('harness-scale: CPU (cell) = the bundle\'s harness_cpu_ms_per_rollout: harness process (process.cpuUsage, every thread) + launcher co-process utime+stime, over the cell ÷ attempts; children excluded (the cp -a / rm -rf the launcher runs, printed as "helper children": its cutime+cstime); "whole run" = this process over the whole runSpec (start-up, journal, analysis, report) ÷ attempts; memory: RSS (process.memoryUsage.rss every 100 ms), no PSS sampling');
    console.log(`harness-scale: stand-in sandbox held C × ${HOLD_MS_PER_C} ms (offered ${1000 / HOLD_MS_PER_C} rollouts/s at every C); ${cpus().length} CPUs; load average ${fmt(load)} before, ${fmt(loadavg()[0]!)} after`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Every C with every fixture placement, each in its own child; the placements alternate their order
 * from one C to the next, so a drift of the machine does not always land on the same one. A level
 * that does not complete ends the climb (the levels above it would not either).
 */
function measureLevels(levels: readonly number[], placements: readonly FixturePlacement[], recordingsPath: string, dir: string): CellFigures[] {
  const rows: CellFigures[] = [];
  for (const [index, c] of levels.entries()) {
    const order = index % 2 === 0 ? placements : [...placements].reverse();
    for (const placement of order) {
      const figures = measureInChild(c, placement, recordingsPath, dir);
      if ('error' in figures) {
        console.log(`harness-scale C=${c} (${placement} fixture root): did not complete (${figures.error}); levels above it not run`);
        return rows;
      }
      rows.push(figures);
      console.log(`harness-scale C=${c}: done (${fmt(figures.wallMs / 1000, 1)} s cell; fixture root ${placement}: ${figures.fixtureFs})`);
    }
  }
  return rows;
}

function printScaling(placement: FixturePlacement, rows: readonly CellFigures[]): void {
  if (rows.length < 2) return;
  const cpu = exponent(rows.map((r) => [r.c, r.cellCpuMsPerRollout * r.planned]));
  const perRollout = exponent(rows.map((r) => [r.c, r.cellCpuMsPerRollout]));
  // A growth below a few MiB is the RSS sampler's noise (at C = 16 it reads 0-40 KiB), and its log
  // would decide the slope: the RSS fit takes only the levels whose growth is measurable.
  const grown = rows.filter((r) => r.rssPeakKiB - r.rssBeforeKiB >= RSS_FIT_MIN_KIB);
  const rss = grown.length >= 2 ? exponent(grown.map((r) => [r.c, r.rssPeakKiB - r.rssBeforeKiB])) : null;
  const rssText = rss ? `RSS growth ∝ C^${fmt(rss.b, 3)} (R² ${fmt(rss.r2, 3)}, over the ${grown.length} levels that grew ≥ ${RSS_FIT_MIN_KIB / 1024} MiB)` : `RSS growth: fewer than 2 levels grew ≥ ${RSS_FIT_MIN_KIB / 1024} MiB, no fit`;
  console.log(`harness-scale: scaling exponent, ${placement} fixture root (log-log least squares over ${rows.length} levels, attempts = ${ROUNDS}·C): total cell CPU ∝ C^${fmt(cpu.b, 3)} (R² ${fmt(cpu.r2, 3)}; per rollout C^${fmt(perRollout.b, 3)}); ${rssText}; target ≤ ${HARNESS_SCALE_TARGETS.exponent}`);
}

async function childMain(args: string[]): Promise<void> {
  const [c, fixtures, recordingsPath, parent] = args;
  const dir = mkdtempSync(join(parent!, `c${c}-`));
  const figures = await measureCell(Number(c), fixtures as FixturePlacement, loadRecordings(recordingsPath!), dir);
  rmSync(dir, { recursive: true, force: true });
  console.log(JSON.stringify(figures));
  process.exit(0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const childAt = process.argv.indexOf('--child');
  if (childAt >= 0) await childMain(process.argv.slice(childAt + 1));
  else await runHarnessScaleBench();
}
