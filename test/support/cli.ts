import { execa } from 'execa';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

export const SANDBENCH_BIN = join(PROJECT_ROOT, 'bin', 'sandbench.mjs');

/** Run the real CLI as a user would, never rejecting; returns code and output. */
export async function sandbench(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const result = await execa('node', [SANDBENCH_BIN, ...args], { reject: false, cwd: options.cwd ?? PROJECT_ROOT, env: options.env });
  return { code: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}
