/**
 * The local fixture repositories behind data/rollout-tasks/swe-fixture.jsonl, generated (never
 * committed as binaries) from data/rollout-tasks/swe-fixture-repos/<name>/commits/<NN-message>/:
 * each snapshot directory becomes one commit, in order, with fixed author, committer and dates,
 * so the commit ids the JSONL names come out the same on every machine. SWE-bench-format
 * instances name them as repo `sandbench-fixtures/<name>`.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { cachedEntry } from './baseline-cache.ts';
import { gitIn } from './git.ts';
import { treeDigest } from './tree-digest.ts';

export const SWE_FIXTURE_REPOS_DIR = join(PROJECT_ROOT, 'data', 'rollout-tasks', 'swe-fixture-repos');
export const FIXTURE_REPO_OWNER = 'sandbench-fixtures';
/** First commit's date (2025-11-01T00:00:00Z); commit k is one day later per step. */
export const FIXTURE_EPOCH = 1761955200;
const GENERATOR_VERSION = 1;

const FIXTURE_CONFIG: [string, string][] = [
  ['core.hooksPath', '/dev/null'],
  ['gc.auto', '0'],
  ['core.autocrlf', 'false'],
  ['commit.gpgsign', 'false'],
  ['user.name', 'sandbench fixture'],
  ['user.email', 'fixture@sandbench.invalid'],
];

async function buildRepo(source: string, dir: string): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  await gitIn(dir, ['init', '-q', '-b', 'main']);
  rmSync(join(dir, '.git', 'hooks'), { recursive: true, force: true });
  for (const [key, value] of FIXTURE_CONFIG) await gitIn(dir, ['config', key, value]);
  const commits: string[] = [];
  const snapshots = readdirSync(join(source, 'commits')).sort();
  for (const [index, snapshot] of snapshots.entries()) {
    for (const entry of readdirSync(dir)) if (entry !== '.git') rmSync(join(dir, entry), { recursive: true, force: true });
    cpSync(join(source, 'commits', snapshot), dir, { recursive: true });
    const date = `@${FIXTURE_EPOCH + index * 86_400} +0000`;
    const env = { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    await gitIn(dir, ['add', '-A'], { env });
    await gitIn(dir, ['commit', '-q', '--no-verify', '--allow-empty', '-m', snapshot.replace(/^\d+-/, '').replaceAll('-', ' ')], { env });
    commits.push((await gitIn(dir, ['rev-parse', 'HEAD'])).stdout.trim());
  }
  return commits;
}

export interface FixtureRepos {
  /** `sandbench-fixtures/<name>` → generated repository directory. */
  readonly repos: Record<string, string>;
  /** Commit ids per repository, oldest first. */
  readonly commits: Record<string, string[]>;
}

/** Generate (or reuse) every fixture repository under `cacheDir`. */
export async function ensureFixtureRepos(cacheDir: string, sourceRoot: string = SWE_FIXTURE_REPOS_DIR): Promise<FixtureRepos> {
  const names = existsSync(sourceRoot) ? readdirSync(sourceRoot).sort() : [];
  const digest = treeDigest(sourceRoot, createHash('sha256').update(`swe fixture repos ${GENERATOR_VERSION} ${FIXTURE_EPOCH}\n`)).digest('hex').slice(0, 16);
  const entry = await cachedEntry<{ commits: Record<string, string[]> }>(cacheDir, `swe-fixture-repos-${digest}`, async (dir) => {
    const commits: Record<string, string[]> = {};
    for (const name of names) commits[`${FIXTURE_REPO_OWNER}/${name}`] = await buildRepo(join(sourceRoot, name), join(dir, name));
    return { commits };
  });
  const repos: Record<string, string> = {};
  for (const name of names) repos[`${FIXTURE_REPO_OWNER}/${name}`] = join(entry.dir, name);
  return { repos, commits: entry.meta.commits };
}
