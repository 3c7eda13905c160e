/**
 * The short socket directory (harness/run/socket-path.ts) on real directories and real binds: a
 * path that fits is kept; one that does not is bound under `<scratch root>/sockets/<hash>/`, which
 * a real server can listen on, `release()` removes, and `sandbench clean` (findLeftovers) attributes
 * to its run — never while the run is live. A path that still cannot fit is a clear UserError.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findLeftovers } from '../../../harness/clean/find-leftovers.ts';
import { UserError } from '../../../harness/errors.ts';
import { acquireRunLock } from '../../../harness/run/run-lock.ts';
import { placeSocket, SOCKET_DIR_NAME, SOCKET_PATH_MAX_BYTES, socketDirs, socketPathFor } from '../../../harness/run/socket-path.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const runId = `20261202T000000Z-${'a-very-long-spec-name'.padEnd(24, 'x')}-${Date.now().toString(36).slice(-4)}`;

/** `<root>/sandbench-<runId>/<cell>/model.sock`, as a rollout cell's socket (over the limit for a 30-byte root). */
const wantedUnder = (root: string) => join(root, `sandbench-${runId}`, 'rc0123456789', 'a-long-attempt-dir', 'model.sock');

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('socket path placement', () => {
  it('keeps a path that fits, and creates nothing for it', () => {
    const root = tempDir('sbsock-');
    const wanted = join(root, `sandbench-${runId}`, 'model.sock');
    expect(Buffer.byteLength(wanted)).toBeLessThanOrEqual(SOCKET_PATH_MAX_BYTES);
    const placed = placeSocket(wanted);
    expect(placed.path).toBe(wanted);
    placed.release();
    expect(readdirSync(root)).toEqual([]);
  });

  it('binds a path over the limit in a short hashed dir under the same scratch root; release removes it', async () => {
    const root = tempDir('sbsock-');
    const wanted = wantedUnder(root);
    expect(Buffer.byteLength(wanted)).toBeGreaterThan(SOCKET_PATH_MAX_BYTES);
    mkdirSync(dirname(wanted), { recursive: true });
    // the premise: Node (20) binds an over-long path silently truncated, so nothing listens at `wanted`
    const truncated = await listen(wanted).catch(() => null);
    expect(existsSync(wanted)).toBe(false);
    if (truncated) await close(truncated);

    const placed = placeSocket(wanted);
    expect(placed.path).toBe(socketPathFor(wanted)); // same answer before and after the dir exists
    expect(dirname(dirname(dirname(placed.path)))).toBe(root);
    expect(basename(dirname(dirname(placed.path)))).toBe(SOCKET_DIR_NAME);
    expect(basename(placed.path)).toBe('model.sock');
    expect(Buffer.byteLength(placed.path)).toBeLessThanOrEqual(SOCKET_PATH_MAX_BYTES);
    expect(socketPathFor(join(dirname(wanted), 'other.sock'))).not.toBe(placed.path);

    const server = await listen(placed.path);
    await close(server);
    expect(socketDirs([root])).toEqual([{ dir: dirname(placed.path), wanted, runId }]);

    const other = placeSocket(join(dirname(wanted), 'other-service.sock'));
    placed.release();
    placed.release(); // idempotent
    expect(existsSync(dirname(placed.path))).toBe(false);
    expect(existsSync(join(root, SOCKET_DIR_NAME))).toBe(true); // another socket still lives there
    other.release();
    expect(readdirSync(root)).not.toContain(SOCKET_DIR_NAME);
  });

  it('clean attributes a dead run\'s short socket dir to the run, and leaves a live run\'s alone', async () => {
    const state = tempDir('sbsock-state-');
    const placed = placeSocket(wantedUnder(join(state, 'tmp'))); // <state dir>/tmp is one of clean's scratch roots
    expect(readFileSync(join(dirname(placed.path), 'for'), 'utf8').trim()).toBe(wantedUnder(join(state, 'tmp')));

    const release = acquireRunLock(state, runId);
    try {
      expect((await findLeftovers({ stateDir: state, runId })).map((l) => l.id)).not.toContain(dirname(placed.path));
    } finally {
      release();
    }
    const found = (await findLeftovers({ stateDir: state, runId })).filter((l) => l.id === dirname(placed.path));
    expect(found.map((l) => [l.kind, l.runId])).toEqual([['tempdir', runId]]);
    await found[0]!.remove();
    expect(existsSync(join(state, 'tmp', SOCKET_DIR_NAME))).toBe(false);
  });

  it('a path that cannot fit even in short form is a UserError naming the path and the fix', () => {
    const longRoot = join(tempDir('sbsock-'), 'x'.repeat(80));
    const wanted = wantedUnder(longRoot);
    expect(() => socketPathFor(wanted)).toThrow(UserError);
    expect(() => socketPathFor(wanted)).toThrow(new RegExp(`${wanted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*SANDBENCH_FIXTURES`));
    const outside = join(tempDir('sbsock-'), 'y'.repeat(100), 'model.sock');
    expect(() => placeSocket(outside)).toThrow(/outside any sandbench-<run> scratch dir.*SANDBENCH_FIXTURES/);
  });
});
