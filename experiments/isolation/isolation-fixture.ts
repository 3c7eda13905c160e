/**
 * Fresh host fixtures for one isolation trial: canary files outside the workspace (hashed before
 * and after), a host Unix-socket listener that counts connections, and the baseline workspace with
 * the probe script, its config and a symlink pointing out at the canaries. Everything lives under
 * the trial's placement root (a `sandbench-<runId>` dir: isolation-placement.ts), so `sandbench
 * clean` finds it after a kill -9 — but the host socket, when its path there would be over the
 * 107-byte sun_path limit (a long spec name makes a long run id), which is bound in the short socket
 * dir beside that root instead (harness/run/socket-path.ts: same root, so the same path class).
 */
import { randomBytes, createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { treeDigest } from '../../executors/workspace-diff.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { placeSocket, socketPathFor } from '../../harness/run/socket-path.ts';

export const PROBE_SCRIPT = 'isolation_probe.py';
export const READ_CANARIES = { abs_read: 'abs-read.txt', symlink_read: 'symlink-read.txt', proc_root_read: 'proc-root-read.txt', traversal_read: 'traversal-read.txt' } as const;
export const WRITE_CANARIES = { abs_write: 'abs-write.txt', symlink_write: 'symlink-write.txt', proc_root_write: 'proc-root-write.txt', traversal_write: 'traversal-write.txt' } as const;
/** The baseline file the alias probe targets through the baseline's host path. */
export const ALIAS_TARGET = 'alias-target.txt';
export const WORKSPACE_DATA = 'data.txt';
export const WORKSPACE_WRITTEN = 'written.txt';
const SOCKET_NAME = 'host.sock';

const probeSource = readFileSync(join(PROJECT_ROOT, 'experiments', 'isolation', PROBE_SCRIPT), 'utf8');

export interface IsolationFixture {
  nonce: string;
  hostDir: string;
  /** Where the host listener is bound (in hostDir, or the short socket dir when that would not fit). */
  socketPath: string;
  baselineDir: string;
  /** Secret each read canary holds: only a read that reached the host can print it. */
  secrets: Record<string, string>;
  /** sha256 of every host-dir entry before the trial (socket excluded). */
  hostBefore: Map<string, string>;
  baselineBefore: string;
  workspaceData: string;
  writePayload: string;
  connections(): number;
  close(): Promise<void>;
}

/** `<runScratch>/isolation-host`: outside every workspace, inside the run's scratch dir. */
export function hostDirFor(baselineDir: string): string {
  return join(dirname(baselineDir), 'isolation-host');
}

export function hostEntries(hostDir: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const name of readdirSync(hostDir).sort()) {
    if (name === SOCKET_NAME) continue;
    let digest: string;
    try {
      digest = createHash('sha256').update(readFileSync(join(hostDir, name))).digest('hex');
    } catch {
      digest = 'unreadable';
    }
    entries.set(name, digest);
  }
  return entries;
}

/** Write the baseline workspace for one trial (also used by prepareBaseline). */
export function writeBaseline(baselineDir: string, nonce: string): { workspaceData: string; writePayload: string } {
  const hostDir = hostDirFor(baselineDir);
  rmSync(baselineDir, { recursive: true, force: true });
  mkdirSync(baselineDir, { recursive: true });
  const workspaceData = `workspace-data-${nonce}\n`;
  const writePayload = `workspace-write-${nonce}\n`;
  writeFileSync(join(baselineDir, PROBE_SCRIPT), probeSource);
  writeFileSync(join(baselineDir, WORKSPACE_DATA), workspaceData);
  writeFileSync(join(baselineDir, ALIAS_TARGET), `alias-canary-${nonce}\n`);
  writeFileSync(
    join(baselineDir, 'isolation_config.json'),
    `${JSON.stringify({ host_dir: hostDir, baseline_dir: baselineDir, host_socket: socketPathFor(join(hostDir, SOCKET_NAME)), write_payload: writePayload })}\n`,
  );
  // Absolute target: resolved by whoever follows it — the host, or the sandbox's own root.
  symlinkSync(hostDir, join(baselineDir, 'link-out'));
  return { workspaceData, writePayload };
}

export async function createFixture(baselineDir: string): Promise<IsolationFixture> {
  const nonce = randomBytes(8).toString('hex');
  const hostDir = hostDirFor(baselineDir);
  rmSync(hostDir, { recursive: true, force: true });
  mkdirSync(hostDir, { recursive: true });
  const secrets: Record<string, string> = {};
  for (const [probe, file] of Object.entries(READ_CANARIES)) {
    secrets[probe] = `sandbench-secret-${nonce}-${probe}`;
    writeFileSync(join(hostDir, file), `${secrets[probe]}\n`);
  }
  for (const [probe, file] of Object.entries(WRITE_CANARIES)) writeFileSync(join(hostDir, file), `canary-${nonce}-${probe}\n`);
  const { workspaceData, writePayload } = writeBaseline(baselineDir, nonce);

  // the same path writeBaseline gave the probe; one that cannot fit is a UserError naming the fix
  const socket = placeSocket(join(hostDir, SOCKET_NAME));
  const socketPath = socket.path;
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  }).catch((error: unknown) => {
    socket.release();
    throw error;
  });
  return {
    nonce,
    hostDir,
    socketPath,
    baselineDir,
    secrets,
    hostBefore: hostEntries(hostDir),
    baselineBefore: treeDigest(baselineDir),
    workspaceData,
    writePayload,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => socket.release()),
  };
}
