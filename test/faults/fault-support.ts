/**
 * Helpers for the fault tests: start the real CLI, wait for a point in the run, kill -9 it, and
 * ask `sandbench clean` (scoped to the run id, so files running in parallel are never touched)
 * what the kill left behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readJournal } from '../../harness/journal/journal.ts';
import { sandbench } from '../support/cli.ts';

export async function waitFor(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

export function runIdOf(bundle: string): string {
  return JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8')).run_id as string;
}

export function plannedIds(bundle: string): string[] {
  return (JSON.parse(readFileSync(join(bundle, 'plan.json'), 'utf8')).trials as { trial_id: string }[]).map((t) => t.trial_id);
}

export function journalCount(bundle: string): number {
  const path = join(bundle, 'journal.jsonl');
  return existsSync(path) ? readJournal(path).records.length : 0;
}

export function inflightTrial(bundle: string): string | null {
  try {
    return (JSON.parse(readFileSync(join(bundle, 'inflight.json'), 'utf8')) as { trial_id: string }).trial_id;
  } catch {
    return null;
  }
}

/** `clean --dry-run --run <id>` lines (kind id run_id). */
export async function leftoverLines(runId: string): Promise<string[]> {
  const result = await sandbench(['clean', '--dry-run', '--run', runId]);
  if (result.code !== 0) throw new Error(`clean --dry-run exited ${result.code}: ${result.stderr}`);
  return result.stdout.split('\n').filter(Boolean);
}

/** What a line says without the pid/path detail: "process", "container podman/...", for the record. */
export function leftoverKinds(lines: string[]): string[] {
  return [...new Set(lines.map((line) => line.split(' ')[0]!))].sort();
}
