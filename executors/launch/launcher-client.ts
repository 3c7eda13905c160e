/**
 * The harness side of the `sandbench-launch` co-process: one per run, many launches over one pipe.
 * Routes events to the launch that owns them, and when the launcher dies (killed, crashed) kills
 * every tree it had started (their process groups) and fails each launch with the reason, so a
 * dead launcher never leaves orphans or a trial waiting forever.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { constants } from 'node:os';
import {
  EventDecoder,
  PROTOCOL_VERSION,
  encodeBarrier,
  encodeClose,
  encodeKill,
  encodePing,
  encodeSpawn,
  encodeWrite,
  type BarrierWrite,
  type LauncherEvent,
  type SpawnRequest,
} from './launcher-protocol.ts';

type LaunchEvent = Extract<LauncherEvent, { type: 'spawned' | 'spawn-failed' | 'output' | 'exit' | 'timeout' }>;

export interface LaunchHandlers {
  onEvent(event: LaunchEvent): void;
  /** The launcher died before this launch exited (its tree has been killed), or before it was sent (`sent` false). */
  onLauncherDeath(reason: string, sent: boolean): void;
}

export interface LaunchedProcess {
  readonly id: number;
  /** Host PID once the launcher reported the spawn. */
  pid: number | null;
  done: boolean;
  write(data: string | Buffer): void;
  closeStdin(): void;
  signal(signal: NodeJS.Signals): void;
}

export interface BarrierResult {
  tFirstNs: bigint;
  tLastNs: bigint;
  writes: BarrierWrite[];
}

const STDERR_KEEP = 4000;

/** Child stdio pipes are net.Sockets at run time (with ref/unref), typed as plain streams. */
const handleOf = (stream: unknown) => stream as { ref?: () => void; unref?: () => void } | undefined;

export class LauncherClient {
  private readonly launches = new Map<number, { process: LaunchedProcess; handlers: LaunchHandlers }>();
  private readonly barriers = new Map<number, { resolve: (r: BarrierResult) => void; reject: (e: Error) => void }>();
  private readonly pings = new Map<number, (tNs: bigint) => void>();
  private nextId = 1;
  private stderrTail = '';
  private deathReason: string | null = null;
  private readonly decoder = new EventDecoder();
  private refs = 0;
  /** Launcher PID from its hello event. */
  pid = 0;

  private constructor(
    readonly binary: string,
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
  ) {}

  static start(binary: string): Promise<LauncherClient> {
    const child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    const client = new LauncherClient(binary, child);
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (reason: string) => {
        if (settled) return;
        settled = true;
        reject(new Error(`sandbench-launch (${binary}) did not start: ${reason}`));
      };
      child.once('error', (error) => fail(error.message));
      child.stderr.on('data', (chunk: Buffer) => (client.stderrTail = (client.stderrTail + chunk.toString()).slice(-STDERR_KEEP)));
      child.stdin.on('error', () => undefined);
      child.stdout.on('data', (chunk: Buffer) => {
        let events: LauncherEvent[];
        try {
          events = client.decoder.push(chunk);
        } catch (error) {
          client.die(`protocol error: ${(error as Error).message}`);
          child.kill('SIGKILL');
          return;
        }
        for (const event of events) {
          if (event.type === 'hello' && !settled) {
            settled = true;
            if (event.version !== PROTOCOL_VERSION) {
              child.kill('SIGKILL');
              reject(new Error(`sandbench-launch speaks protocol ${event.version}, the harness ${PROTOCOL_VERSION}: rebuild it (scripts/setup.sh)`));
              return;
            }
            client.pid = event.pid;
            client.unrefIfIdle();
            resolve(client);
          } else client.dispatch(event);
        }
      });
      child.once('exit', (code, signal) => {
        const why = signal ? `killed by ${signal}` : `exited with code ${code}`;
        const tail = client.stderrTail.trim();
        fail(`${why}${tail ? `: ${tail}` : ''}`);
        client.die(`${why}${tail ? ` (${tail.split('\n').slice(-1)[0]})` : ''}`);
      });
    });
  }

  get alive(): boolean {
    return this.deathReason === null;
  }

  get whyDead(): string | null {
    return this.deathReason;
  }

  /** Launcher's own PID, for tests that kill it. */
  get processPid(): number | undefined {
    return this.child.pid;
  }

  /** Keep Node alive only while something is in flight; an idle launcher must not hold the process open. */
  private ref(): void {
    if (this.refs++ === 0) {
      this.child.ref();
      for (const stream of [this.child.stdout, this.child.stderr, this.child.stdin]) handleOf(stream)?.ref?.();
    }
  }

  private unref(): void {
    if (--this.refs === 0) this.unrefIfIdle();
  }

  private unrefIfIdle(): void {
    if (this.refs > 0) return;
    this.child.unref();
    for (const stream of [this.child.stdout, this.child.stderr, this.child.stdin]) handleOf(stream)?.unref?.();
  }

  private send(frame: Buffer): void {
    if (!this.alive) return;
    this.child.stdin.write(frame);
  }

  private dispatch(event: LauncherEvent): void {
    if (event.type === 'barrier') {
      const pending = this.barriers.get(event.id);
      this.barriers.delete(event.id);
      if (pending) this.unref();
      pending?.resolve({ tFirstNs: event.tFirstNs, tLastNs: event.tLastNs, writes: event.writes });
      return;
    }
    if (event.type === 'pong') {
      const pending = this.pings.get(event.id);
      this.pings.delete(event.id);
      if (pending) this.unref();
      pending?.(event.tNs);
      return;
    }
    if (event.type === 'hello') return;
    if (event.type === 'error') {
      this.stderrTail = `${this.stderrTail}\nlauncher error (id ${event.id}): ${event.message}`.slice(-STDERR_KEEP);
      return;
    }
    const entry = this.launches.get(event.id);
    if (!entry) return;
    if (event.type === 'spawned') entry.process.pid = event.pid;
    if (event.type === 'exit' || event.type === 'spawn-failed') {
      entry.process.done = true;
      this.launches.delete(event.id);
      this.unref();
    }
    entry.handlers.onEvent(event);
  }

  private die(reason: string): void {
    if (this.deathReason !== null) return;
    this.deathReason = reason;
    for (const { process: launched, handlers } of this.launches.values()) {
      // The launcher can no longer reap or signal them: kill each tree ourselves.
      if (launched.pid !== null) {
        try {
          process.kill(-launched.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      launched.done = true;
      handlers.onLauncherDeath(reason, true);
    }
    this.launches.clear();
    for (const pending of this.barriers.values()) pending.reject(new Error(`sandbench-launch died: ${reason}`));
    this.barriers.clear();
    this.pings.clear();
    this.refs = 0;
  }

  spawn(request: SpawnRequest, handlers: LaunchHandlers): LaunchedProcess {
    const id = this.nextId++;
    const client = this;
    const launched: LaunchedProcess = {
      id,
      pid: null,
      done: false,
      write: (data) => client.send(encodeWrite(id, data)),
      closeStdin: () => client.send(encodeClose(id)),
      signal(signal) {
        if (launched.done) return;
        if (client.alive) client.send(encodeKill(id, constants.signals[signal]));
        else if (launched.pid !== null) {
          try {
            process.kill(-launched.pid, signal);
          } catch {
            // already gone
          }
        }
      },
    };
    if (!this.alive) {
      launched.done = true;
      queueMicrotask(() => handlers.onLauncherDeath(`it died earlier in this run: ${this.deathReason}`, false));
      return launched;
    }
    const frame = encodeSpawn(id, request);
    this.launches.set(id, { process: launched, handlers });
    this.ref();
    this.send(frame);
    return launched;
  }

  /** Launches still running, by host PID (barrier targets are found from RunningTrial.rootPids()). */
  byPid(pid: number): LaunchedProcess | undefined {
    for (const { process: launched } of this.launches.values()) if (launched.pid === pid) return launched;
    return undefined;
  }

  /** Writes `data` to every target's stdin in one tight loop inside the launcher, stamping each write. */
  barrier(targets: LaunchedProcess[], data: string, closeAfter = false): Promise<BarrierResult> {
    if (!this.alive) return Promise.reject(new Error(`sandbench-launch died: ${this.deathReason}`));
    const id = this.nextId++;
    const frame = encodeBarrier(id, data, targets.map((t) => t.id), closeAfter);
    return new Promise((resolve, reject) => {
      this.barriers.set(id, { resolve, reject });
      this.ref();
      this.send(frame);
    });
  }

  /** Round trip; resolves with the launcher's clock at the reply. */
  ping(): Promise<bigint> {
    if (!this.alive) return Promise.reject(new Error(`sandbench-launch died: ${this.deathReason}`));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pings.set(id, resolve);
      this.ref();
      this.send(encodePing(id));
    });
  }

  /** EOF on its stdin makes the launcher kill what it still runs and exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(timer);
  }
}
