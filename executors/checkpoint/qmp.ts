/** A minimal QMP client (QEMU Machine Protocol over a unix socket): capabilities, commands, polling. */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface QmpClient {
  execute(command: string, args?: Record<string, unknown>): Promise<unknown>;
  close(): void;
}

/** Connect (retrying while qemu creates the socket), read the greeting, negotiate capabilities. */
export async function openQmp(path: string, timeoutMs = 30_000): Promise<QmpClient> {
  const deadline = Date.now() + timeoutMs;
  let socket: Socket | null = null;
  while (!socket) {
    try {
      socket = await new Promise<Socket>((resolve, reject) => {
        const s = connect(path);
        s.once('connect', () => resolve(s));
        s.once('error', reject);
      });
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`QMP ${path}: ${(error as Error).message}`);
      await sleep(5);
    }
  }
  const pending: { resolve(v: unknown): void; reject(e: Error): void }[] = [];
  let buffer = '';
  let greeted: () => void;
  const greeting = new Promise<void>((resolve) => (greeted = resolve));
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      const message = JSON.parse(line) as { QMP?: unknown; event?: string; return?: unknown; error?: { desc: string } };
      if (message.QMP) greeted();
      else if (message.event) continue;
      else if (message.error) pending.shift()?.reject(new Error(`QMP: ${message.error.desc}`));
      else pending.shift()?.resolve(message.return);
    }
  });
  socket.on('close', () => {
    for (const waiter of pending.splice(0)) waiter.reject(new Error('QMP socket closed'));
  });
  await greeting;
  const client: QmpClient = {
    execute(command, args) {
      return new Promise((resolve, reject) => {
        pending.push({ resolve, reject });
        socket!.write(`${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`);
      });
    },
    close: () => socket!.destroy(),
  };
  await client.execute('qmp_capabilities');
  return client;
}

/** Poll query-migrate until it completes (returns its stats) or fails. */
export async function waitMigration(qmp: QmpClient, timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = (await qmp.execute('query-migrate')) as { status?: string; 'error-desc'?: string; ram?: Record<string, unknown> };
    if (info.status === 'completed') return info as Record<string, unknown>;
    if (info.status === 'failed' || info.status === 'cancelled') throw new Error(`migration ${info.status}: ${info['error-desc'] ?? 'no reason given'}`);
    if (Date.now() > deadline) throw new Error(`migration still ${info.status} after ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** Poll query-status until the VM reaches `status` (an incoming child reaches "paused" once loaded). */
export async function waitStatus(qmp: QmpClient, status: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = (await qmp.execute('query-status')) as { status?: string };
    if (info.status === status) return;
    if (Date.now() > deadline) throw new Error(`VM status ${info.status}, not ${status}, after ${timeoutMs} ms`);
    await sleep(5);
  }
}
