/**
 * A disk that fills mid-run (the bundle's filesystem, or the scratch one the trials stage into) is
 * an infrastructure failure, not a bug: the run stops with one line naming the path, the free space
 * and the command that finishes it, and exit 3 — never an "internal error" with a stack trace. The
 * trial in flight keeps its inflight.json mark (written before it started), so `run --resume`
 * records the interruption and re-runs it; the journal is never left with a torn line (journal.ts).
 */
import { existsSync, statfsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import type { TrialRecord } from '../journal/trial-record.ts';

/** `run`'s exit code for an infrastructure failure the user fixes outside sandbench (a full disk). */
export const EXIT_INFRASTRUCTURE = 3;

/** How the kernel, Node and the tools a trial runs (cp, tar, podman) say "no space". */
const NO_SPACE = /\bENOSPC\b|\bEDQUOT\b|No space left on device|Disk quota exceeded/;

/** A thrown error that is a full disk (or quota), from Node's fs or from a child process's message. */
export function isDiskFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return true;
  return error instanceof Error && NO_SPACE.test(error.message);
}

/** Failure categories on the harness's side of a trial (staging, recording, the harness itself). */
const HARNESS_SIDE = new Set(['setup_failed', 'recording_failed', 'harness_error']);

/**
 * A trial the kind recorded as failed because its staging or the harness ran out of space (kinds
 * turn a thrown staging error into a `setup_failed` record). Journaling it would count a full disk
 * as a backend failure, so the run stops instead and the trial re-runs on resume. A task's own
 * failure (`task_failed`) is the task's, even when its output mentions space.
 */
export function diskFullNote(record: TrialRecord): string | null {
  if (record.outcome !== 'failed' || !HARNESS_SIDE.has(record.failure_category ?? '')) return null;
  return record.notes.find((note) => NO_SPACE.test(note)) ?? null;
}

/** The path a disk-full error names: Node's own `path`, else the caller's best guess. */
export function diskFullPath(error: unknown, fallback: string): string {
  const path = (error as NodeJS.ErrnoException | null)?.path;
  return typeof path === 'string' && path.length > 0 ? path : fallback;
}

/**
 * The path a kind's failure note names as the one that did not fit: the last quoted absolute path
 * before "No space left" (cp says "error copying 'src' to 'dst': No space left on device").
 */
export function notePath(note: string): string | null {
  const match = NO_SPACE.exec(note);
  const before = match ? note.slice(0, match.index) : note;
  return [...before.matchAll(/'(\/[^']+)'/g)].at(-1)?.[1] ?? null;
}

/** Free bytes for unprivileged writers, and the size, of the filesystem holding `path` (its nearest existing ancestor). */
export function filesystemSpace(path: string): { free: number; size: number } | null {
  let dir = resolve(path);
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    const stats = statfsSync(dir);
    return { free: stats.bavail * stats.bsize, size: stats.blocks * stats.bsize };
  } catch {
    return null;
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1048576).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

function formatSpace(path: string): string {
  const space = filesystemSpace(path);
  return space ? `${formatBytes(space.free)} free of ${formatBytes(space.size)}` : 'free space unknown';
}

export interface DiskFullContext {
  /** The file or directory the failed write was for. */
  path: string;
  /** What was being written (journal line, trial workspace, analysis files, ...). */
  writing: string;
  /** The trial in flight, when there was one (its inflight.json mark makes resume re-run it). */
  trialId: string | null;
  bundleDir: string;
  journaled: number;
  planned: number;
}

/** The one-line message and exit 3. */
export class DiskFullError extends UserError {
  constructor(context: DiskFullContext) {
    const inflight = context.trialId ? `trial ${context.trialId} was in flight and is marked to re-run; ` : '';
    super(
      `infrastructure: disk full: ${context.path} (${formatSpace(context.path)}) while writing ${context.writing}; ` +
        `${inflight}the journal holds ${context.journaled} of ${context.planned} planned trials and is resumable. ` +
        `Free space on that filesystem, then: sandbench run --resume ${context.bundleDir}`,
      EXIT_INFRASTRUCTURE,
    );
    this.name = 'DiskFullError';
  }
}
