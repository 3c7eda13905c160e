/**
 * Wire format between the harness and `sandbench-launch` (launcher/PROTOCOL.md). Pure: encoding of
 * requests and an incremental decoder of events, so the framing is tested without a process.
 *   request: "<op> <id> <len>\n" + payload      event: "<type> <id> <t_ns> <a> <b> <len>\n" + payload
 */

export const PROTOCOL_VERSION = 3;

/** Pre-exec stage a failed spawn reports (same numbers as `enum stage` in the C source). */
export const SPAWN_STAGES: Record<number, string> = { 0: 'request', 1: 'cgroup', 2: 'affinity', 3: 'chdir', 4: 'exec', 5: 'fork', 6: 'stdio' };

export interface SpawnRequest {
  argv: string[];
  /** Complete environment, KEY=VALUE (the launcher never adds its own). */
  env: Record<string, string>;
  cwd?: string;
  stdin: 'pipe' | 'none';
  /** CPU list ("0,1", "0-3"): sched_setaffinity in the child, after entering the cgroups. */
  cpus?: string | null;
  /** cgroup.procs files the child writes itself into before exec. */
  cgroupProcs?: string[];
  /** Launcher-side deadline from the pre-spawn stamp: SIGTERM to the group, then SIGKILL after graceMs. */
  timeoutMs?: number;
  graceMs?: number;
  /** No-op launches right before the stamp, done only when the launcher runs nothing else (PROTOCOL.md). */
  warmups?: number;
  /** Untimed runs of this very command right before the stamp (hyperfine's --warmup; PROTOCOL.md). */
  primes?: number;
}

export type LauncherEvent =
  | { type: 'hello'; tNs: bigint; version: number; pid: number }
  | { type: 'spawned'; id: number; tNs: bigint; pid: number; tForkReturnNs: bigint; warmups: number; primes: number }
  | { type: 'spawn-failed'; id: number; tNs: bigint; stage: string; errno: number; message: string }
  | { type: 'output'; id: number; tNs: bigint; stream: 'stdout' | 'stderr'; data: Buffer }
  | { type: 'exit'; id: number; tNs: bigint; exitCode: number | null; signal: number | null }
  | { type: 'timeout'; id: number; tNs: bigint }
  | { type: 'barrier'; id: number; tFirstNs: bigint; tLastNs: bigint; writes: BarrierWrite[] }
  | { type: 'pong'; id: number; tNs: bigint }
  | { type: 'error'; id: number; tNs: bigint; message: string };

export interface BarrierWrite {
  id: number;
  tNs: bigint;
  /** 0 when the write succeeded, else the errno. */
  errno: number;
}

function frame(op: string, id: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${op} ${id} ${payload.length}\n`), payload]);
}

/** Fields are "k=value\0"; NUL cannot occur in argv/env on Linux, so it is a safe separator. */
function fields(entries: [string, string][]): Buffer {
  for (const [key, value] of entries) {
    if (value.includes('\0')) throw new Error(`sandbench-launch: ${key === 'a' ? 'argv' : key === 'e' ? 'env' : 'field'} value contains a NUL byte`);
  }
  return Buffer.from(entries.map(([key, value]) => `${key}=${value}\0`).join(''));
}

export function encodeSpawn(id: number, request: SpawnRequest): Buffer {
  const entries: [string, string][] = request.argv.map((word) => ['a', word]);
  for (const [key, value] of Object.entries(request.env)) {
    if (key.includes('=')) throw new Error(`sandbench-launch: environment name "${key}" contains "="`);
    entries.push(['e', `${key}=${value}`]);
  }
  if (request.cwd) entries.push(['d', request.cwd]);
  entries.push(['i', request.stdin === 'pipe' ? 'pipe' : 'null']);
  if (request.cpus) entries.push(['c', request.cpus]);
  for (const file of request.cgroupProcs ?? []) entries.push(['g', file]);
  if (request.timeoutMs !== undefined) entries.push(['t', String(Math.max(1, Math.ceil(request.timeoutMs)))]);
  if (request.graceMs !== undefined) entries.push(['k', String(Math.ceil(request.graceMs))]);
  if (request.warmups) entries.push(['w', String(request.warmups)]);
  if (request.primes) entries.push(['p', String(request.primes)]);
  return frame('S', id, fields(entries));
}

export const encodeWrite = (id: number, data: Buffer | string): Buffer => frame('W', id, Buffer.from(data));
export const encodeClose = (id: number): Buffer => frame('C', id, Buffer.alloc(0));
export const encodeKill = (id: number, signal: number): Buffer => frame('K', id, Buffer.from(String(signal)));
export const encodePing = (id: number): Buffer => frame('P', id, Buffer.alloc(0));

export function encodeBarrier(barrierId: number, data: string, targets: number[], closeAfter = false): Buffer {
  if (targets.length > 4096) throw new Error('sandbench-launch: a barrier releases at most 4096 processes');
  return frame('B', barrierId, fields([['d', data], ['c', closeAfter ? '1' : '0'], ...targets.map((id): [string, string] => ['p', String(id)])]));
}

/** Incremental decoder: feed chunks as they arrive, get whole events back. */
export class EventDecoder {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): LauncherEvent[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const events: LauncherEvent[] = [];
    let offset = 0;
    for (;;) {
      const newline = this.buffer.indexOf(10, offset);
      if (newline < 0) break;
      const header = this.buffer.subarray(offset, newline).toString('latin1').split(' ');
      if (header.length !== 6) throw new Error(`sandbench-launch: malformed event header "${header.join(' ').slice(0, 80)}"`);
      const length = Number(header[5]);
      const start = newline + 1;
      if (this.buffer.length - start < length) break;
      events.push(toEvent(header, this.buffer.subarray(start, start + length)));
      offset = start + length;
    }
    this.buffer = offset === 0 ? this.buffer : Buffer.from(this.buffer.subarray(offset));
    return events;
  }
}

function toEvent(header: string[], payload: Buffer): LauncherEvent {
  const [type, idText, tText, aText, bText] = header as [string, string, string, string, string];
  const id = Number(idText);
  const tNs = BigInt(tText);
  switch (type) {
    case 'H':
      return { type: 'hello', tNs, version: Number(aText), pid: Number(bText) };
    case 'S': {
      const counts = payload.toString();
      const count = (key: string) => Number(new RegExp(`(?:^| )${key}=(\\d+)`).exec(counts)?.[1] ?? 0);
      return { type: 'spawned', id, tNs, pid: Number(aText), tForkReturnNs: BigInt(bText), warmups: count('w'), primes: count('p') };
    }
    case 'F':
      return { type: 'spawn-failed', id, tNs, stage: SPAWN_STAGES[Number(aText)] ?? `stage ${aText}`, errno: Number(bText), message: payload.toString() };
    case 'O':
      // Copy: the decoder's buffer is reused, the consumer may keep the chunk.
      return { type: 'output', id, tNs, stream: aText === '2' ? 'stderr' : 'stdout', data: Buffer.from(payload) };
    case 'X':
      return aText === '1' ? { type: 'exit', id, tNs, exitCode: Number(bText), signal: null } : { type: 'exit', id, tNs, exitCode: null, signal: Number(bText) };
    case 'T':
      return { type: 'timeout', id, tNs };
    case 'B': {
      const writes = payload
        .toString()
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => {
          const [target, stamp, errno] = line.split(' ');
          return { id: Number(target), tNs: BigInt(stamp!), errno: Number(errno) };
        });
      return { type: 'barrier', id, tFirstNs: tNs, tLastNs: BigInt(aText), writes };
    }
    case 'P':
      return { type: 'pong', id, tNs };
    case 'E':
      return { type: 'error', id, tNs, message: payload.toString() };
    default:
      throw new Error(`sandbench-launch: unknown event type "${type}"`);
  }
}
