/**
 * Which sandbench this is: the package version and the git commit it was built from. In a checkout
 * the commit is read from git at run time (a build stamp can lag: dist/ is only rebuilt when a
 * source changes, a commit changes none); an installed package has no .git of its own (and may sit
 * inside someone else's repository, whose commit is not ours), so the commit comes from
 * dist/build-stamp.json, written by scripts/build-dist.mjs; with neither it is null rather than a
 * failure. `sandbench --version` prints it and every bundle records it (host-facts.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

export interface VersionInfo {
  version: string;
  commit: string | null;
  /** Uncommitted changes to tracked files; null when the commit did not come from a live checkout. */
  dirty: boolean | null;
}

function gitOutput(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** The commit of `root` when `root` is itself the top of a git checkout (not a folder inside some other repository). */
function checkoutCommit(root: string): { commit: string; dirty: boolean } | null {
  const top = gitOutput(root, ['rev-parse', '--show-toplevel']);
  if (top === null || realpathSync(top) !== realpathSync(root)) return null;
  const commit = gitOutput(root, ['rev-parse', 'HEAD']);
  if (commit === null) return null;
  const status = gitOutput(root, ['status', '--porcelain', '--untracked-files=no']);
  return { commit, dirty: status !== null && status.length > 0 };
}

function stampedCommit(root: string): string | null {
  try {
    const stamp = JSON.parse(readFileSync(join(root, 'dist', 'build-stamp.json'), 'utf8')) as { commit?: unknown };
    return typeof stamp.commit === 'string' && /^[0-9a-f]{7,40}$/.test(stamp.commit) ? stamp.commit : null;
  } catch {
    return null;
  }
}

export function readVersionInfo(root: string): VersionInfo {
  let version = 'unknown';
  try {
    version = String((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version ?? 'unknown');
  } catch {
    // an unreadable package.json still prints a line
  }
  const live = checkoutCommit(root);
  if (live) return { version, ...live };
  return { version, commit: stampedCommit(root), dirty: null };
}
