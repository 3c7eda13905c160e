/**
 * The two replay subjects, each run as its own process and timed launch to exit:
 * - `sandbench`: sandbench's preparer (`replay prepare`), through the entry the spec picks;
 * - `pvisor-replay`: pVisor's `pvisor-replay --prepare-only`, a subject only when found on PATH
 *   (or at $SANDBENCH_PVISOR_REPLAY); when absent its arms are skipped with the reason recorded.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ReplayAgent } from './agents.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

export const REPLAY_SUBJECTS = ['sandbench', 'pvisor-replay'] as const;
export type ReplaySubject = (typeof REPLAY_SUBJECTS)[number];
export const PREPARER_ENTRIES = ['bundle', 'snapshot', 'tsx-lean', 'cli'] as const;
export type PreparerEntry = (typeof PREPARER_ENTRIES)[number];

export { PROJECT_ROOT };

export interface SubjectStatus {
  subject: ReplaySubject;
  available: boolean;
  /** Absolute path of the executable (or entry script); null when unavailable. */
  command: string | null;
  reason: string | null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** First executable `name` on PATH, like `command -v`. */
export function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | null {
  for (const dir of pathVar.split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return null;
}

export function pvisorReplayStatus(): SubjectStatus {
  const override = process.env.SANDBENCH_PVISOR_REPLAY;
  if (override) {
    return isExecutable(override)
      ? { subject: 'pvisor-replay', available: true, command: override, reason: null }
      : { subject: 'pvisor-replay', available: false, command: null, reason: `$SANDBENCH_PVISOR_REPLAY=${override} is not an executable file` };
  }
  const found = findOnPath('pvisor-replay');
  return found
    ? { subject: 'pvisor-replay', available: true, command: found, reason: null }
    : { subject: 'pvisor-replay', available: false, command: null, reason: 'pvisor-replay is not on PATH (pip install pvisor-sandbox provides it)' };
}

export function subjectStatus(subject: ReplaySubject): SubjectStatus {
  if (subject === 'pvisor-replay') return pvisorReplayStatus();
  return { subject, available: true, command: process.execPath, reason: null };
}

export interface AttemptPaths {
  agent: ReplayAgent;
  trajectory: string;
  workspace: string;
  /** Where the subject writes its prefix/manifest (sandbench --out, pvisor --output-dir). */
  outputDir: string;
  /** pvisor --state-dir (sandbench keeps no state). */
  stateDir: string;
}

/** Argv of one attempt. `bundlePath` is the compiled preparer (entry `bundle`) or its snapshot blob (`snapshot`). */
export function subjectArgv(subject: ReplaySubject, paths: AttemptPaths, options: { command: string; entry: PreparerEntry; bundlePath: string | null }): string[] {
  if (subject === 'pvisor-replay') {
    return [options.command, '--agent', paths.agent, '--trajectory', paths.trajectory, '--after-step', '1', '--prepare-only', '--workspace', paths.workspace, '--state-dir', paths.stateDir, '--output-dir', paths.outputDir];
  }
  const prepareArgs = ['replay', 'prepare', '--agent', paths.agent, '--trajectory', paths.trajectory, '--after-step', '1', '--out', paths.outputDir];
  if (options.entry === 'bundle' || options.entry === 'snapshot') {
    if (!options.bundlePath) throw new Error(`subjectArgv: the ${options.entry} entry needs a built preparer`);
    return options.entry === 'bundle' ? [process.execPath, options.bundlePath, ...prepareArgs] : [process.execPath, '--snapshot-blob', options.bundlePath, ...prepareArgs];
  }
  const script = join(PROJECT_ROOT, 'bin', options.entry === 'tsx-lean' ? 'sandbench-replay.mjs' : 'sandbench.mjs');
  return [process.execPath, script, ...prepareArgs];
}
