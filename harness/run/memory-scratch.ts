/**
 * A run's scratch in memory (tmpfs), for the harness's OWN small per-attempt files — never a
 * sandbox's workspace, whose filesystem is part of what a backend is measured on.
 *
 * Why (issue 33, measured with bench/harness-scale.bench.ts and a per-step timing on this ext4 VM
 * disk, n = 300 each): creating inodes on ext4 while a campaign creates and deletes thousands of
 * per-attempt trees costs the creating process ~0.2-0.7 ms of kernel time per mkdir/open(O_CREAT)
 * (the inode allocator scanning block groups past recently deleted inodes); extracting one candidate
 * (a directory, a file) cost the harness 2.0 ms of CPU on ext4 and 0.06 ms on tmpfs.
 *
 * Per uid (as the fixture root), `sandbench-<run id>` below it, so `clean` finds what a dead run
 * left (harness/state-dir.ts scratchRoots lists this root). null when the host has no writable
 * tmpfs there: callers keep their files in the run's ordinary scratch.
 */
import { accessSync, constants, statfsSync } from 'node:fs';
import { join } from 'node:path';

const TMPFS_MAGIC = 0x01021994;

/** The per-uid root of memory scratch; it is listed by scratchRoots whether or not it exists. */
export const MEMORY_SCRATCH_ROOT = join('/dev/shm', `sandbench-scratch-${process.getuid?.() ?? 'user'}`);

let usable: boolean | null = null;

function tmpfsWritable(): boolean {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return statfsSync('/dev/shm').type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

/** `<root>/sandbench-<runId>`, or null without a writable tmpfs at /dev/shm (checked once per process). */
export function memoryScratchDir(runId: string): string | null {
  usable ??= tmpfsWritable();
  return usable ? join(MEMORY_SCRATCH_ROOT, `sandbench-${runId}`) : null;
}
