/**
 * Harbor's in-environment paths (harbor/models/trial/paths.py: /logs/{agent,verifier,artifacts},
 * /tests, /solution, and the task's WORKDIR such as /app) do not exist on every sandbench backend:
 * host runs in a host directory, staged and the containers mount the workspace at /workspace, and
 * nothing may be mounted at /app on the host. So a task's scripts are rewritten where they run,
 * with the sandbox's real directories: every path that starts with one of those prefixes (as a
 * whole path segment) is replaced, in one pass, by the directory it stands for.
 *
 * The rewrite is done inside the sandbox by perl (Debian's perl-base is Essential, so it is in the
 * task image and on any Debian host), because only there is the workspace's absolute path known.
 * Known limit: a path assembled at run time (`"/ap""p"`, `$ROOT/app`) is not rewritten.
 */

/** One prefix and the shell expression (evaluated in the sandbox) of the directory it stands for. */
export interface PathMapping {
  readonly prefix: string;
  /** A shell word with `$W` (the workspace, `$PWD` where the command starts). */
  readonly to: string;
}

/** Where the verifier's and oracle's files live inside a sandbench workspace (workspace-relative). */
export const HARBOR_SCORE_DIR = '.sandbench-score';
export const HARBOR_ORACLE_DIR = '.sandbench-rollout/solution';

/** The mappings for a task whose scripts name `workdir` (e.g. /app). Longest prefixes first. */
export function harborMappings(workdir: string): PathMapping[] {
  const mappings: PathMapping[] = [
    { prefix: '/logs', to: `$W/${HARBOR_SCORE_DIR}/logs` },
    { prefix: '/tests', to: `$W/${HARBOR_SCORE_DIR}/tests` },
    { prefix: '/solution', to: `$W/${HARBOR_ORACLE_DIR}` },
  ];
  // A WORKDIR that is itself one of Harbor's directories keeps that directory's meaning.
  if (!mappings.some((m) => m.prefix === workdir) && workdir !== '/') mappings.push({ prefix: workdir, to: '$W' });
  return mappings.sort((a, b) => b.prefix.length - a.prefix.length);
}

function perlQuote(text: string): string {
  return text.replace(/[^A-Za-z0-9_/-]/g, (c) => `\\${c}`);
}

/**
 * A shell command that rewrites `files` (shell words, e.g. a glob) in place. It expects `W` to be
 * set to the workspace; each prefix matches only at a path boundary (not inside `/apple` or `x/app`).
 */
export function rewritePathsCommand(mappings: readonly PathMapping[], files: string): string {
  const exports = mappings.map((m, i) => `SB_P${i}="${m.to}"`).join(' ');
  const alternation = mappings.map((m) => perlQuote(m.prefix)).join('|');
  const table = mappings.map((m, i) => `"${perlQuote(m.prefix)}"=>$ENV{SB_P${i}}`).join(',');
  const program = `BEGIN{%m=(${table})} s{(?<![\\w./-])(${alternation})(?![\\w.-])}{$m{$1}}g`;
  return `${exports} perl -pi -e '${program}' ${files}`;
}
