/**
 * Commits a directory as a one-commit git repository whose commit id depends only on its files:
 * fixed author/committer and dates, no global/system config, hooks disabled, no auto-gc, and a
 * stat cache that survives copies and image imports (backend-notes: "Repair fixture trap").
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

/** Environment that keeps the user's and the system's git config out of every fixture command. */
export function isolatedGitEnv(home: string): Record<string, string> {
  return {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    HOME: home,
    GIT_PAGER: 'cat',
    GIT_TERMINAL_PROMPT: '0',
  };
}

const FIXTURE_CONFIG: [string, string][] = [
  ['core.hooksPath', '/dev/null'],
  ['gc.auto', '0'],
  ['core.checkStat', 'minimal'],
  ['core.trustctime', 'false'],
  ['core.autocrlf', 'false'],
  ['core.pager', 'cat'],
  ['commit.gpgsign', 'false'],
  ['user.name', 'sandbench fixture'],
  ['user.email', 'fixture@sandbench.invalid'],
];

/** `git init` + one commit dated `epoch`; returns the commit id (same files → same id). */
export async function commitDeterministicRepo(dir: string, message: string, epoch: number): Promise<string> {
  const date = `@${epoch} +0000`;
  const env = { ...isolatedGitEnv(dir), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  const git = (...args: string[]) => execa('git', args, { cwd: dir, env, extendEnv: true });
  await git('init', '-q', '-b', 'main');
  // Sample hooks are inert but are bytes nobody needs in a fixture; hooksPath already disables hooks.
  rmSync(join(dir, '.git', 'hooks'), { recursive: true, force: true });
  for (const [key, value] of FIXTURE_CONFIG) await git('config', key, value);
  await git('add', '-A');
  await git('commit', '-q', '--no-verify', '-m', message);
  return (await git('rev-parse', 'HEAD')).stdout.trim();
}
