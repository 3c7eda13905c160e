/**
 * Where the harness binds a Unix socket that belongs in a run's scratch. A socket path holds at
 * most 107 bytes on Linux (sun_path is 108 with its NUL), and scratch paths carry the run id, which
 * carries the spec's name: `/var/tmp/sandbench-fixtures-0/sandbench-<46-byte run id>/<cell>/model.sock`
 * is already 110 bytes. A user names a spec as they like, so a socket that would not fit is bound in
 * a short directory instead, `<scratch root>/sockets/<hash of the wanted path>/<its file name>`:
 *
 * - under the same scratch root as the wanted path (the parent of its `sandbench-<run>` dir), so the
 *   socket keeps the wanted path's path class (inside-home / tmp: a control, harness/state-dir.ts);
 * - named by a hash of the wanted path, so the name is the same for the same path (a resumed run);
 * - holding a file `for` with the wanted path, whose `sandbench-<run id>` dir names the run exactly:
 *   `sandbench clean` reads it to attribute the directory to its run and leaves live runs' sockets alone.
 *
 * The directory is removed by `release()` (its owner's close, which the run's cleanup registry calls at
 * run end and on SIGINT/SIGTERM); after a kill -9, `sandbench clean` finds it (socketDirs below).
 * A path that still cannot fit is a UserError naming the path and the fix, never a bare EINVAL.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { UserError } from '../errors.ts';

/** Longest socket path bind(2) accepts: sun_path[108] less its terminating NUL. */
export const SOCKET_PATH_MAX_BYTES = 107;
/** The short socket directories' parent below a scratch root (never `sandbench-*`: clean reads those as run dirs). */
export const SOCKET_DIR_NAME = 'sockets';
/** The file in each short directory holding the wanted path. */
const WANTED_FILE = 'for';
const HASH_CHARS = 16;

export interface PlacedSocket {
  /** The path to bind (and to hand to sandboxes): `wanted` when it fits, else the short path. */
  readonly path: string;
  /** Remove the short directory (nothing when `wanted` fitted); idempotent, never throws. */
  release(): void;
}

const bytes = (path: string) => Buffer.byteLength(path);

/** The run scratch dir `wanted` lives in (its nearest `sandbench-<run>` ancestor), split into its root and run id; null outside any. */
function runDirOf(wanted: string): { root: string; runId: string } | null {
  const parts = dirname(wanted).split(sep);
  for (let index = parts.length - 1; index > 0; index -= 1) {
    if (parts[index]!.startsWith('sandbench-')) return { root: parts.slice(0, index).join(sep) || sep, runId: parts[index]!.slice('sandbench-'.length) };
  }
  return null;
}

function tooLong(wanted: string, root: string | null, short: string | null): UserError {
  const shortForm = short === null ? ' and it is outside any sandbench-<run> scratch dir' : `; even its short form ${short} is ${bytes(short)} bytes`;
  return new UserError(
    `Unix socket path ${wanted} is ${bytes(wanted)} bytes, over the ${SOCKET_PATH_MAX_BYTES}-byte limit of a socket address (sun_path)${shortForm}. ` +
      `Fix: a shorter scratch root than ${root ?? dirname(wanted)}: set SANDBENCH_FIXTURES (or SANDBENCH_HOME) to a short directory such as /var/tmp/sb`,
  );
}

/** The path a socket meant for `wanted` is bound at (pure: writers of configs read it before the socket exists). */
export function socketPathFor(wanted: string): string {
  if (bytes(wanted) <= SOCKET_PATH_MAX_BYTES) return wanted;
  const root = runDirOf(wanted)?.root ?? null;
  const hash = createHash('sha256').update(wanted).digest('hex').slice(0, HASH_CHARS);
  const short = root === null ? null : join(root, SOCKET_DIR_NAME, hash, basename(wanted));
  if (short === null || bytes(short) > SOCKET_PATH_MAX_BYTES) throw tooLong(wanted, root, short);
  return short;
}

/** Make the socket's directory (the short one when `wanted` does not fit) and say where to bind. */
export function placeSocket(wanted: string): PlacedSocket {
  const path = socketPathFor(wanted);
  if (path === wanted) return { path, release: () => undefined };
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, WANTED_FILE), `${wanted}\n`);
  let released = false;
  return {
    path,
    release: () => {
      if (released) return;
      released = true;
      rmSync(dir, { recursive: true, force: true });
      try {
        rmdirSync(dirname(dir)); // the last socket of the root takes `sockets/` with it
      } catch {
        // not empty (another run's socket) or already gone
      }
    },
  };
}

export interface SocketDir {
  dir: string;
  /** The wanted path its `for` file names; null when the file is missing or unreadable. */
  wanted: string | null;
  /** The run whose scratch dir (`sandbench-<run id>`, named exactly) the wanted path is in; null when unknown. */
  runId: string | null;
}

/** Every short socket directory below these scratch roots (for `sandbench clean`). */
export function socketDirs(scratchRoots: readonly string[]): SocketDir[] {
  return scratchRoots.flatMap((root) => {
    const parent = join(root, SOCKET_DIR_NAME);
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      return [];
    }
    return names.map((name) => {
      const dir = join(parent, name);
      try {
        const wanted = readFileSync(join(dir, WANTED_FILE), 'utf8').trim();
        return { dir, wanted, runId: runDirOf(wanted)?.runId ?? null };
      } catch {
        return { dir, wanted: null, runId: null };
      }
    });
  });
}
