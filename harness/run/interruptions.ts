/**
 * Trials that were in flight when the harness died or was interrupted. They are re-run on resume,
 * so the journal keeps every planned trial exactly once; the interruption itself is recorded here,
 * never silently forgotten.
 */
import { existsSync, fsyncSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { appendLineDurably } from '../bundle/durable-append.ts';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../bundle/layout.ts';

export const INFLIGHT_FILE = BUNDLE_FILES.inflight;
export const INTERRUPTED_FILE = BUNDLE_FILES.interrupted;

export interface InterruptionRecord {
  trial_id: string;
  reason: string;
  detected: 'signal' | 'resume';
}

function writeDurably(path: string, text: string): void {
  writeFileSync(path, text);
  const fd = openSync(path, 'r');
  fsyncSync(fd);
  closeSync(fd);
}

export function markInflight(bundleDir: string, trialId: string): void {
  writeDurably(join(bundleDir, INFLIGHT_FILE), `${JSON.stringify({ trial_id: trialId })}\n`);
}

export function clearInflight(bundleDir: string): void {
  rmSync(join(bundleDir, INFLIGHT_FILE), { force: true });
}

export function readInflight(bundleDir: string): string | null {
  const path = join(bundleDir, INFLIGHT_FILE);
  if (!existsSync(path)) return null;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { trial_id: string }).trial_id;
  } catch {
    return null;
  }
}

export function recordInterruption(bundleDir: string, record: InterruptionRecord): void {
  appendLineDurably(join(bundleDir, INTERRUPTED_FILE), record);
}
