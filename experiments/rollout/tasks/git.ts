/**
 * git for task preparation and scoring: the user's and the system's config kept out (the repair
 * fixture's isolated env), no pager, no optional index locks, and no discovery of a repository
 * above the directory worked in (a scoring workspace under the project tree must not be patched
 * relative to the project's own repository).
 */
import { dirname } from 'node:path';
import { execa, type Options } from 'execa';
import { isolatedGitEnv } from '../../repair/deterministic-repo.ts';

export interface GitResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function gitIn(cwd: string, args: readonly string[], opts: { input?: string; reject?: boolean; env?: Record<string, string> } = {}): Promise<GitResult> {
  const env = { ...isolatedGitEnv(cwd), GIT_OPTIONAL_LOCKS: '0', GIT_CEILING_DIRECTORIES: dirname(cwd), ...opts.env };
  const options: Options = { cwd, env, extendEnv: true, reject: false, stripFinalNewline: false, ...(opts.input !== undefined ? { input: opts.input } : {}) };
  const result = await execa('git', args, options);
  // a spawn failure (no git, no cwd) has no exit code: its message stands in for stderr
  const out = { exitCode: result.exitCode ?? -1, stdout: String(result.stdout ?? ''), stderr: String(result.stderr || (result.exitCode === undefined ? result.message : '')) };
  if (opts.reject !== false && out.exitCode !== 0) throw new Error(`git ${args.join(' ')} (in ${cwd}) exited ${out.exitCode}: ${out.stderr.trim().split('\n')[0]}`);
  return out;
}
