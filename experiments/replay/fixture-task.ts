/**
 * The synthetic task every generated trajectory encodes (issue 6): a user message `fixture {i}`,
 * two assistant turns each with text `fixture-text-{i}-{k}` and one shell call, call 0 writes a
 * marker file, call 1 (the "future action" a continuation would take next) reads it, and every tool
 * result is the literal `historical observation` with exit code 0. Identifiers and timestamps are
 * derived from (seed, index) so the same seed regenerates the same bytes.
 */
import { createHash } from 'node:crypto';

export const HISTORICAL_OBSERVATION = 'historical observation';

export interface FixtureTurn {
  text: string;
  command: string;
  observation: string;
  exitCode: number;
}

export interface FixtureTask {
  index: number;
  seed: number;
  userText: string;
  /** Turn 0 is the historical step kept in the prefix; turn 1 is the future action. */
  turns: [FixtureTurn, FixtureTurn];
  /** Epoch milliseconds of the first event (events advance by one second). */
  startMs: number;
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
    startMs: BASE_EPOCH_MS + offsetSeconds * 1000,
  };
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
