/**
 * Which timing path this process's trials use, decided once per run: the native launcher (started
 * and calibrated at run start — the first executor probe asks for it) or, when it cannot be had,
 * Node's own spawn with the reason recorded. A launcher that dies mid-run is not replaced: the trials
 * it had are failed and later launches fail fast, so one run never mixes two timing paths.
 */
import { median, medianAbsoluteDeviation } from 'simple-statistics';
import type { TimingPath } from '../../harness/contracts/executor.ts';
import { locateLauncher, nodePathForced } from './launcher-binary.ts';
import { LauncherClient } from './launcher-client.ts';
import { launchWarmups } from './spawn-options.ts';

export interface Calibration {
  /** No-op launches timed (warmups excluded). */
  n: number;
  warmups: number;
  command: string[];
  /** Untimed no-op launches the launcher ran before each (as before every trial launch). */
  warmupLaunches: number;
  /** Pre-vfork stamp → waitid stamp of each no-op, ms. */
  samplesMs: number[];
  medianMs: number;
  madMs: number;
  failures: number;
}

export type TimingSession =
  | { path: 'launcher'; client: LauncherClient; calibration: Calibration }
  | { path: 'node'; reason: string };

export const CALIBRATION_RUNS = 40;
export const CALIBRATION_WARMUPS = 5;
/** A no-op every machine has; hyperfine calibrates against an empty command the same way. */
const NOOP = ['/bin/true'];

let current: Promise<TimingSession> | null = null;
let settled: TimingSession | null = null;

/** Completion of one launch through the launcher: its own pre-vfork and waitid stamps. */
export function launchOnce(client: LauncherClient, argv: string[], cpus: string | null = null): Promise<number> {
  return new Promise((resolve, reject) => {
    let t0 = 0n;
    client.spawn(
      // Warmed as every trial launch is, so the floor is measured in the trials' condition.
      { argv, env: { PATH: '/usr/bin:/bin' }, stdin: 'none', cpus, timeoutMs: 10_000, warmups: launchWarmups() },
      {
        onEvent(event) {
          if (event.type === 'spawned') t0 = event.tNs;
          else if (event.type === 'spawn-failed') reject(new Error(event.message));
          else if (event.type === 'exit') event.exitCode === 0 ? resolve(Number(event.tNs - t0) / 1e6) : reject(new Error(`${argv.join(' ')} exited ${event.exitCode ?? event.signal}`));
        },
        onLauncherDeath: (reason) => reject(new Error(`sandbench-launch died: ${reason}`)),
      },
    );
  });
}

export async function calibrate(client: LauncherClient, runs = CALIBRATION_RUNS, warmups = CALIBRATION_WARMUPS): Promise<Calibration> {
  const samplesMs: number[] = [];
  let failures = 0;
  for (let i = 0; i < warmups + runs; i++) {
    try {
      const ms = await launchOnce(client, NOOP);
      if (i >= warmups) samplesMs.push(ms);
    } catch {
      // Counted, never dropped silently: a failing no-op means the floor is not trustworthy.
      if (i >= warmups) failures += 1;
    }
  }
  if (samplesMs.length === 0) throw new Error(`calibration: all ${runs} no-op launches of ${NOOP.join(' ')} failed`);
  return { n: samplesMs.length, warmups, command: NOOP, warmupLaunches: launchWarmups(), samplesMs, medianMs: median(samplesMs), madMs: medianAbsoluteDeviation(samplesMs), failures };
}

async function open(): Promise<TimingSession> {
  if (nodePathForced()) return { path: 'node', reason: 'SANDBENCH_TIMING_PATH=node' };
  const binary = await locateLauncher();
  if (!binary.ok) return { path: 'node', reason: binary.reason };
  let client: LauncherClient;
  try {
    client = await LauncherClient.start(binary.path);
  } catch (error) {
    return { path: 'node', reason: (error as Error).message };
  }
  try {
    return { path: 'launcher', client, calibration: await calibrate(client) };
  } catch (error) {
    await client.stop();
    return { path: 'node', reason: (error as Error).message };
  }
}

/** The run's timing session, started (and calibrated) on first use. */
export function timingSession(): Promise<TimingSession> {
  if (!current) {
    current = open().then((session) => (settled = session));
  }
  return current;
}

/** The session if it is already established (sync callers use the Node path before that). */
export function establishedSession(): TimingSession | null {
  return settled;
}

/**
 * Start of a run (probe): a launcher that died in an earlier run is replaced, a live one kept.
 * Within a run nothing calls this again, so a death mid-run fails that run's remaining launches.
 */
export async function freshTimingSession(): Promise<TimingSession> {
  const session = await timingSession();
  if (session.path === 'launcher' && !session.client.alive) {
    current = null;
    settled = null;
    return timingSession();
  }
  return session;
}

/**
 * Processes of the harness itself that sit between it and every launched tree (the launcher): a
 * budget membership check walking a payload's ancestors must stop there, as it does at the harness.
 */
export function harnessHelperPids(): number[] {
  return settled?.path === 'launcher' && settled.client.alive ? [settled.client.pid] : [];
}

/** Stop the launcher (tests; the CLI simply exits and the launcher follows on EOF). */
export async function closeTimingSession(): Promise<void> {
  const session = current ? await current : null;
  current = null;
  settled = null;
  if (session?.path === 'launcher') await session.client.stop();
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** The per-trial statement of how it was timed. */
export function timingPathOf(session: TimingSession | null): TimingPath {
  if (!session) return { path: 'node', fallback_reason: 'launch before the run started the launcher' };
  if (session.path === 'node') return { path: 'node', fallback_reason: session.reason };
  const { calibration } = session;
  return { path: 'launcher', floor_median_ms: round(calibration.medianMs), floor_mad_ms: round(calibration.madMs), floor_n: calibration.n };
}

/**
 * The run's timing path for records whose process is not one RunningTrial (a batch, a checkpoint's
 * mechanism calls): which path launched their processes and the floor measured at run start.
 */
export function runTimingPath(): TimingPath {
  return timingPathOf(settled);
}

/** For probe details (doctor, environment.json): strings only. */
export async function timingDetails(): Promise<Record<string, string>> {
  const session = await freshTimingSession();
  if (session.path === 'node') return { timing_path: 'node', timing_fallback_reason: session.reason };
  const { calibration } = session;
  return {
    timing_path: 'launcher',
    launcher: session.client.binary,
    launcher_floor_median_ms: round(calibration.medianMs).toString(),
    launcher_floor_mad_ms: round(calibration.madMs).toString(),
    launcher_floor_n: String(calibration.n),
    launcher_floor_failures: String(calibration.failures),
    launcher_floor_command: calibration.command.join(' '),
    launcher_warmup_launches: String(calibration.warmupLaunches),
  };
}
