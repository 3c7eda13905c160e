/**
 * Fixed capacity: with slots 2 a third concurrent request waits in FIFO order for a slot, service
 * time follows base_ms + per_token_ms × tokens, and a client that leaves frees its slot. Bounds
 * are generous (shared 2-core machine); `npm run bench -- model` measures the precision.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelJournal, startModelService, statsFromJournal, type ModelJournalEntry } from '../../../services/model/index.ts';
import { miniRequest, piRequest } from './cli-requests.ts';
import { send } from './client.ts';

const SCRIPT = join(import.meta.dirname, '../../../data/model-scripts/marker.yaml');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-cap-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const readJournal = (path: string): ModelJournalEntry[] => readModelJournal(path).entries;

describe('capacity', () => {
  it('slots 2: the third concurrent request waits for the first to end', async () => {
    const service = await startModelService({ script: SCRIPT, socketDir: join(dir, 'fifo'), slots: 2, baseMs: 300, perTokenMs: 0 });
    try {
      const replies: Promise<unknown>[] = [];
      for (let index = 0; index < 3; index += 1) {
        replies.push(send(service.socketPath, 'POST', '/v1/chat/completions', { ...miniRequest(1), messages: [...miniRequest(1).messages, { role: 'user', content: `request ${index}` }] }));
        await new Promise((resolve) => setTimeout(resolve, 20)); // a fixed arrival order
      }
      await Promise.all(replies);
      const entries = readJournal(service.journalPath);
      expect(entries.map((entry) => entry.status)).toEqual(['ok', 'ok', 'ok']);
      const [first, second, third] = entries;
      expect(first.queue_wait_ms!).toBeLessThan(100);
      expect(second.queue_wait_ms!).toBeLessThan(100);
      // the third starts when the first ends: its wait is the first's remaining service time
      expect(third.queue_wait_ms!).toBeGreaterThan(150);
      expect(third.queue_wait_ms!).toBeLessThan(1500);
      expect(BigInt(third.t_service_start_ns!)).toBeGreaterThanOrEqual(BigInt(first.t_service_end_ns!));
      expect(entries.map((entry) => entry.queue_depth)).toEqual([0, 0, 1]);
      for (const entry of entries) {
        // every reply is due exactly one service time after its scheduled start, and never ends before it is due
        expect(Number(BigInt(entry.t_due_end_ns!) - BigInt(entry.t_scheduled_start_ns!)) / 1e6).toBe(300);
        expect(BigInt(entry.t_service_end_ns!)).toBeGreaterThanOrEqual(BigInt(entry.t_due_end_ns!));
      }
      // the third is scheduled when the first was due to end, not when it happened to end
      expect(third.t_scheduled_start_ns).toBe(first.t_due_end_ns);
      const stats = service.stats();
      expect(stats).toMatchObject({ generations: 3, maxQueued: 1, active: 0, queued: 0 });
      expect(stats.busySlotMs).toBeGreaterThanOrEqual(900);
      // the journal alone gives the same figures (what a service in another process reports)
      const derived = statsFromJournal(entries, 2, stats.uptimeMs);
      expect(derived).toMatchObject({ requests: 3, generations: 3, maxQueued: 1, byStatus: { ok: 3 } });
      expect(derived.busySlotMs).toBeCloseTo(stats.busySlotMs, 6);
      expect(derived.queueWaitMsTotal).toBeCloseTo(stats.queueWaitMsTotal, 6);
    } finally {
      await service.close();
    }
  });

  it('slots 1: waiting requests are served in arrival order', async () => {
    const service = await startModelService({ script: SCRIPT, socketDir: join(dir, 'order'), slots: 1, baseMs: 100 });
    try {
      const replies: Promise<unknown>[] = [];
      for (let index = 0; index < 4; index += 1) {
        replies.push(send(service.socketPath, 'POST', '/v1/chat/completions', { ...miniRequest(1), messages: [...miniRequest(1).messages, { role: 'user', content: `request ${index}` }] }));
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
      await Promise.all(replies);
      const entries = readJournal(service.journalPath);
      const byArrival = [...entries].sort((a, b) => Number(BigInt(a.t_enqueued_ns) - BigInt(b.t_enqueued_ns)));
      const byStart = [...entries].sort((a, b) => Number(BigInt(a.t_service_start_ns!) - BigInt(b.t_service_start_ns!)));
      expect(byStart.map((entry) => entry.request_sha256)).toEqual(byArrival.map((entry) => entry.request_sha256));
      for (let index = 1; index < byStart.length; index += 1) expect(BigInt(byStart[index].t_service_start_ns!)).toBeGreaterThanOrEqual(BigInt(byStart[index - 1].t_service_end_ns!));
    } finally {
      await service.close();
    }
  });

  it('service time is base_ms + per_token_ms × tokens, streamed token by token', async () => {
    const service = await startModelService({ script: SCRIPT, socketDir: join(dir, 'paced'), slots: 1, baseMs: 50, perTokenMs: 20 });
    try {
      const started = process.hrtime.bigint();
      const reply = await send(service.socketPath, 'POST', '/v1/chat/completions', piRequest(1));
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const [entry] = readJournal(service.journalPath);
      const expected = 50 + 20 * entry.tokens!;
      expect(entry.tokens).toBe(11); // {"command":"printf fixture > marker.txt"} is 43 bytes → ⌈43/4⌉
      expect(entry.t_scheduled_start_ns).toBe(entry.t_service_start_ns); // a free slot: scheduled when it started
      expect(Number(BigInt(entry.t_due_end_ns!) - BigInt(entry.t_scheduled_start_ns!)) / 1e6).toBe(expected);
      const heldMs = Number(BigInt(entry.t_service_end_ns!) - BigInt(entry.t_scheduled_start_ns!)) / 1e6;
      expect(heldMs).toBeGreaterThanOrEqual(expected);
      expect(heldMs).toBeLessThan(expected + 500);
      expect(wallMs).toBeGreaterThanOrEqual(expected);
      expect(reply.body.split('\n\n').filter((block) => block.includes('"arguments":"') && !block.includes('"arguments":""')).length).toBe(11);
    } finally {
      await service.close();
    }
  });

  it('a client that leaves while queued loses its place and costs no slot time', async () => {
    const service = await startModelService({ script: SCRIPT, socketDir: join(dir, 'queued-gone'), slots: 1, baseMs: 600 });
    try {
      const first = send(service.socketPath, 'POST', '/v1/chat/completions', { ...piRequest(1), stream: false });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const leaver = request({ socketPath: service.socketPath, path: '/v1/chat/completions', method: 'POST' }, () => undefined);
      leaver.on('error', () => undefined);
      leaver.end(JSON.stringify(piRequest(2)));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const third = send(service.socketPath, 'POST', '/v1/messages', { ...miniRequest(1), messages: [{ role: 'user', content: 'third' }], tools: [{ name: 'bash', input_schema: { properties: { command: { type: 'string' } } } }] });
      await new Promise((resolve) => setTimeout(resolve, 100));
      leaver.destroy();
      await Promise.all([first, third]);
      const entries = readJournal(service.journalPath);
      const gone = entries.find((entry) => entry.status === 'client_closed')!;
      expect(gone).toMatchObject({ turn: 1, t_service_start_ns: null, service_ms: null });
      const [a, c] = entries.filter((entry) => entry.status === 'ok');
      expect(c.endpoint).toBe('anthropic');
      // the third took the slot straight from the first: the leaver's 600 ms never ran
      expect(Number(BigInt(c.t_service_start_ns!) - BigInt(a.t_service_end_ns!)) / 1e6).toBeLessThan(300);
      expect(service.stats().busySlotMs).toBeLessThan(3 * 600);
    } finally {
      await service.close();
    }
  });

  it('a client that leaves mid-stream frees its slot at once and is journaled client_closed', async () => {
    const service = await startModelService({ script: SCRIPT, socketDir: join(dir, 'gone'), slots: 1, baseMs: 3000 });
    try {
      await new Promise<void>((resolve) => {
        const req = request({ socketPath: service.socketPath, path: '/v1/chat/completions', method: 'POST' }, () => undefined);
        req.on('error', () => resolve());
        req.end(JSON.stringify(piRequest(1)));
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
      await send(service.socketPath, 'POST', '/v1/chat/completions', { ...piRequest(2), stream: false });
      const entries = readJournal(service.journalPath);
      // the first held its slot only until its client left, not for its 3 s; the second did not wait for it
      expect(entries[0]).toMatchObject({ status: 'client_closed', turn: 0 });
      expect(entries[0].service_ms!).toBeLessThan(1500);
      expect(entries[1]).toMatchObject({ status: 'ok', turn: 1 });
      expect(entries[1].queue_wait_ms!).toBeLessThan(1500);
      expect(Number(BigInt(entries[1].t_service_end_ns!) - BigInt(entries[1].t_scheduled_start_ns!)) / 1e6).toBeGreaterThanOrEqual(3000);
      // the first was cut short: the second is scheduled from when it got the slot, not from the first's due end
      expect(entries[1].t_scheduled_start_ns).toBe(entries[1].t_service_start_ns);
    } finally {
      await service.close();
    }
  });
});
