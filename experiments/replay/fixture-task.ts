/**
 * The synthetic task every generated trajectory encodes (issue 6): a user message `fixture {i}`,
 * two assistant turns each with text `fixture-text-{i}-{k}` and one shell call, call 0 writes a
 * marker file, call 1 (the "future action" a continuation would take next) reads it, and every tool
 * result is the literal `historical observation` with exit code 0. Identifiers and timestamps are
 * derived from (seed, index) so the same seed regenerates the same bytes.
 */
import { createHash } from 'node:crypto';
import type { BuiltinFix } from './reexecute/builtin-fix-task.ts';

export const HISTORICAL_OBSERVATION = 'historical observation';

export interface FixtureTurn {
  text: string;
  command: string;
  observation: string;
  exitCode: number;
  /** Ground truth: the call's output is inherently fresh (a timestamp, a random value), so a
   *  re-execution is expected to differ from the recorded observation (issue 19). */
  fresh?: boolean;
}

/** Which synthetic task a trajectory encodes: `marker` (issue 6, prepare-only), `effects` (issue 19) or
 *  `builtin-fix` (issue 19: a built-in rollout task, so a continued attempt is scored by its evaluator). */
export type FixtureProfile = 'marker' | 'effects' | 'builtin-fix';

/** Ground truth of what re-executing the prefix leaves in the workspace (relative to /workspace). */
export interface ExpectedEffects {
  /** Files the prefix creates or modifies, with their exact bytes afterwards. */
  files: Record<string, string>;
  /** Directories the prefix creates whose contents depend on the tool's version (`.git`): present, contents not compared. */
  opaqueDirs: string[];
}

export interface FixtureTask {
  index: number;
  seed: number;
  userText: string;
  /** The first `prefixTurns` turns are the historical steps kept in the prefix; the next one is the future action. */
  turns: FixtureTurn[];
  /** Tool batches (one call each) in the prefix: the cut is after this step. */
  prefixTurns: number;
  profile: FixtureProfile;
  /** Set for profiles whose prefix has effects (`effects`); null for `marker` (nothing is executed). */
  effects: ExpectedEffects | null;
  /** Epoch milliseconds of the first event (events advance by one second). */
  startMs: number;
  /** `builtin-fix` only: the rollout task, the path its continuation takes and the continuation's turns. */
  fix?: BuiltinFix;
}

/** 2026-10-06T00:00:00Z, the published replay cohort's date: a fixed base keeps files reproducible. */
const BASE_EPOCH_MS = Date.UTC(2026, 9, 6);

export function fixtureTask(index: number, seed: number): FixtureTask {
  const offsetSeconds = parseInt(hexId(seed, index, 'start', 6), 16) % 86_400;
  return {
    index,
    seed,
    userText: `fixture ${index}`,
    turns: [
      { text: `fixture-text-${index}-0`, command: `printf fixture-${index} > marker-${index}.txt`, observation: HISTORICAL_OBSERVATION, exitCode: 0 },
      { text: `fixture-text-${index}-1`, command: `cat marker-${index}.txt`, observation: HISTORICAL_OBSERVATION, exitCode: 0 },
    ],
    prefixTurns: 1,
    profile: 'marker',
    effects: null,
    startMs: BASE_EPOCH_MS + offsetSeconds * 1000,
  };
}

/** The baseline workspace every trajectory of task `userText` starts from: path → bytes. */
export function baselineFiles(userText: string): Record<string, string> {
  return { 'TASK.md': `# ${userText}\n`, 'src/main.py': `print(${JSON.stringify(userText)})\n`, '.gitignore': '__pycache__/\n' };
}

/** Deterministic lowercase hex of `length` characters for one named identifier of one task. */
export function hexId(seed: number, index: number, label: string, length = 32): string {
  return createHash('sha256').update(`sandbench-replay:${seed}:${index}:${label}`).digest('hex').slice(0, length);
}

/** RFC 4122-shaped (version 4, variant 10) UUID derived from hexId. */
export function uuidId(seed: number, index: number, label: string): string {
  const h = hexId(seed, index, label, 32).split('');
  h[12] = '4';
  h[16] = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

/** ISO timestamp `step` seconds after the task's start (millisecond precision, Z suffix). */
export function isoAt(task: FixtureTask, step: number): string {
  return new Date(task.startMs + step * 1000).toISOString();
}

export function msAt(task: FixtureTask, step: number): number {
  return task.startMs + step * 1000;
}
