/**
 * The environment-prepare steps a Harbor task's Dockerfile may `RUN` besides `apt-get install`
 * (harbor-dockerfile.ts), and how sandbench honours them offline. Every backend runs one task image,
 * so a task's own preparation cannot go into the image: it goes into the task's baseline workspace
 * (WORKDIR), built once on the host when the task set is loaded and cached like a Docker layer
 * (harbor.ts). Only commands whose result is a set of files inside WORKDIR that any backend can run
 * are honoured:
 *
 *   pip install --require-hashes -r REQ --target DIR   pure-Python wheels (py3-none-any) pinned by
 *                                                      hash, fetched from PyPI at load time (the only
 *                                                      time sandbench has the network) into DIR
 *   git clone SRC DEST                                 SRC a repository or bundle already COPY'd into
 *                                                      WORKDIR (no sandbox has a network)
 *   gcc|cc ARGS...                                     compile with the host's compiler (the task
 *                                                      image is the same Debian release)
 *
 * Anything else is refused at parse time with the reason (harbor-dockerfile.ts adds the line).
 */
import { execFileSync } from 'node:child_process';
import { join, relative, resolve, sep } from 'node:path';
import { UserError } from '../../../harness/errors.ts';
import { isolatedGitEnv } from '../../repair/deterministic-repo.ts';

/** Python the task image runs (Debian bookworm's python3): the wheels pip may pick must fit it. */
const IMAGE_PYTHON_VERSION = '3.11';
const PREPARE_TIMEOUT_MS = 300_000;

export type PrepareCommand =
  | { readonly kind: 'pip'; readonly requirements: string; readonly target: string }
  | { readonly kind: 'git-clone'; readonly source: string; readonly dest: string }
  | { readonly kind: 'compile'; readonly compiler: string; readonly args: readonly string[] };

/** One RUN step: its commands, in order, with the WORKDIR in force (relative paths resolve there). */
export interface DockerfileRun {
  readonly line: number;
  readonly workdir: string | null;
  readonly commands: readonly PrepareCommand[];
}

export interface PrepareTiming {
  readonly line: number;
  readonly command: PrepareCommand['kind'];
  readonly ms: number;
}

/** pip flags that change nothing sandbench's own pip command does not already do. */
const PIP_HARMLESS = new Set(['--no-cache-dir', '--no-deps', '--no-compile', '-q', '--quiet', '--disable-pip-version-check', '--only-binary=:all:', '--require-hashes']);

function pipCommand(words: readonly string[]): PrepareCommand | string {
  let requirements: string | null = null;
  let target: string | null = null;
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i]!;
    const [flag, inline] = word.startsWith('--') && word.includes('=') && word !== '--only-binary=:all:' ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)] : [word, null];
    const value = () => inline ?? words[++i] ?? '';
    if (flag === '-r' || flag === '--requirement') requirements = value();
    else if (flag === '-t' || flag === '--target') target = value();
    else if (PIP_HARMLESS.has(word)) continue;
    else if (word.startsWith('-')) return `pip flag ${word} is not honoured (sandbench runs pip itself, offline-safe: --require-hashes --no-deps --only-binary=:all: for Python ${IMAGE_PYTHON_VERSION})`;
    else return `pip install ${word} names a package outside a hashed requirements file; pin it with its hash in the -r file`;
  }
  if (!words.includes('--require-hashes')) return 'pip install without --require-hashes is not reproducible; pin every package with --hash=sha256:... in a requirements file and pass --require-hashes';
  if (!requirements) return 'pip install needs -r <requirements file> (COPY it into WORKDIR first)';
  if (!target) return "pip install without --target would install into the task image's Python, which every task shares; install into the workspace with --target /app/.deps and put that on PYTHONPATH";
  return { kind: 'pip', requirements, target };
}

function cloneCommand(words: readonly string[]): PrepareCommand | string {
  const paths = words.filter((w) => w !== '-q' && w !== '--quiet');
  if (paths.some((w) => w.startsWith('-'))) return `git clone flag ${paths.find((w) => w.startsWith('-'))} is not honoured (only -q)`;
  if (paths.length !== 2) return 'git clone needs exactly a source and a destination (git clone SRC DEST)';
  const [source, dest] = paths as [string, string];
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(source) || /^[^/]+:/.test(source)) {
    return `git clone ${source} needs the network, which no sandbox has; bundle the repository (git bundle create repo.bundle --all) into environment/, COPY it into WORKDIR and clone the bundle`;
  }
  return { kind: 'git-clone', source, dest };
}

/** One `&&`-separated part of a RUN line that is not apt: a prepare command, or the reason it is refused. */
export function prepareCommand(words: readonly string[]): PrepareCommand | string {
  const [tool, ...rest] = words;
  if ((tool === 'pip' || tool === 'pip3') && rest[0] === 'install') return pipCommand(rest.slice(1));
  if ((tool === 'python3' || tool === 'python') && rest[0] === '-m' && rest[1] === 'pip' && rest[2] === 'install') return pipCommand(rest.slice(3));
  if (tool === 'git' && rest[0] === 'clone') return cloneCommand(rest.slice(1));
  if (tool === 'gcc' || tool === 'cc') return { kind: 'compile', compiler: tool, args: rest };
  return `${tool ?? 'an empty command'} is not one of the prepare steps sandbench honours offline (apt-get install, pip install --require-hashes, git clone of a local bundle, gcc)`;
}

/** Where a Dockerfile path lands in `out` (the workspace = `workdir`); refuses paths outside it. */
function mapPath(path: string, cwd: string, workdir: string, out: string, where: string): string {
  const inImage = path.startsWith('/') ? path : resolve(cwd, path);
  const inside = relative(workdir, inImage);
  if (inside.startsWith('..') || inside.startsWith(sep)) throw new UserError(`${where}: ${path} is outside the task's working directory ${workdir}; sandbench's workspace is that directory only, so prepare files inside it`);
  return join(out, inside);
}

/** The compiler's arguments with every path (bare, or glued to -o/-I/-L) mapped into `out`. */
function compileArgs(args: readonly string[], map: (path: string) => string): string[] {
  return args.map((arg) => {
    const glued = /^-[oIL](.+)$/.exec(arg);
    if (glued) return `${arg.slice(0, 2)}${map(glued[1]!)}`;
    if (arg.startsWith('-')) return arg;
    return map(arg);
  });
}

function run(file: string, args: readonly string[], cwd: string, where: string, env: NodeJS.ProcessEnv): void {
  try {
    execFileSync(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: PREPARE_TIMEOUT_MS, maxBuffer: 16 << 20 });
  } catch (error) {
    const failed = error as { status?: number | null; stderr?: Buffer; message: string };
    const tail = failed.stderr?.toString().trim().split('\n').slice(-4).join(' | ').slice(0, 600) ?? failed.message;
    throw new UserError(`${where}: ${file} ${args.slice(0, 6).join(' ')} failed (exit ${failed.status ?? 'none'}): ${tail}; fix the step so that it succeeds offline from environment/ (pip: from PyPI)`);
  }
}

/**
 * Runs one RUN step's commands on the host into `out` (the baseline workspace standing for
 * `workdir`). `where` is the Dockerfile and line errors name. Returns the step's wall time.
 */
export function runPrepareStep(step: DockerfileRun, workdir: string, out: string, where: string): PrepareTiming[] {
  const cwdInImage = step.workdir ?? workdir;
  const cwd = mapPath(cwdInImage, '/', workdir, out, where);
  const map = (path: string) => mapPath(path, cwdInImage, workdir, out, where);
  return step.commands.map((command) => {
    const started = process.hrtime.bigint();
    switch (command.kind) {
      case 'pip':
        run('python3', ['-m', 'pip', 'install', '--require-hashes', '--no-deps', '--only-binary=:all:', '--platform', 'any', '--implementation', 'py', '--python-version', IMAGE_PYTHON_VERSION, '--no-compile', '--disable-pip-version-check', '--no-cache-dir', '-q', '--target', map(command.target), '-r', map(command.requirements)], cwd, where, { ...process.env, PIP_ROOT_USER_ACTION: 'ignore' });
        break;
      case 'git-clone':
        run('git', ['clone', '-q', map(command.source), map(command.dest)], cwd, where, { ...process.env, ...isolatedGitEnv(out) });
        break;
      case 'compile':
        run(command.compiler, compileArgs(command.args, map), cwd, where, process.env);
        break;
    }
    return { line: step.line, command: command.kind, ms: Number(process.hrtime.bigint() - started) / 1e6 };
  });
}
