/**
 * The suite's own temp dir: global setup points TMPDIR (so os.tmpdir() in every worker and every
 * child they spawn) at a fresh `<tmp>/sb-suite-XXXXXX`, and teardown fails the run when a
 * sandbench/sb-prefixed entry is still in it. A private dir, not a before/after diff of /tmp,
 * because /tmp is shared: other test invocations and live runs of this machine create
 * `sandbench-*` entries there while the suite runs, and a diff would blame them on this suite.
 */
import { chmodSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTempDir } from './remove-dir.ts';

/** What a test or the harness names its temp dirs; anything else (tsx's cache, tool sockets) is not ours to judge. */
const OURS = /^(sandbench|sb)[-_.]/;

export interface SuiteTempDir {
  dir: string;
  /** Entries named like ours still in the dir. */
  leftovers(): string[];
  /** Restore TMPDIR and remove the dir; returns the leftovers found just before removal. */
  close(): string[];
}

export function openSuiteTempDir(env: NodeJS.ProcessEnv = process.env): SuiteTempDir {
  const saved = env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'sb-suite-'));
  // As /tmp is (mkdtemp makes 0700): munged refuses a socket below a dir others cannot search, and
  // a sandbox's unprivileged user may write where os.tmpdir() points.
  chmodSync(dir, 0o1777);
  env.TMPDIR = dir;
  const leftovers = () => readdirSync(dir).filter((name) => OURS.test(name)).sort();
  return {
    dir,
    leftovers,
    close: () => {
      const found = leftovers();
      if (saved === undefined) delete env.TMPDIR;
      else env.TMPDIR = saved;
      removeTempDir(dir);
      return found;
    },
  };
}

/** The teardown's message: every leftover by path, and what to do about it. */
export function leftoverTempMessage(dir: string, names: readonly string[]): string {
  return [
    `the test suite left ${names.length} temp entr${names.length === 1 ? 'y' : 'ies'} in its TMPDIR ${dir} (now removed):`,
    ...names.map((name) => `  ${join(dir, name)}`),
    'make them with tempDir() from test/support/temp-dirs.ts (removed when the file ends, pass or fail), or remove them in a finally',
  ].join('\n');
}
