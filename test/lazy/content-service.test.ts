import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRange, startContentService, type ContentService } from '../../services/lazy-content/content-service.ts';

const SIZE = 100_000;
let dir: string;
let data: Buffer;
let service: ContentService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-test-content-'));
  data = randomBytes(SIZE);
  writeFileSync(join(dir, 'blob.bin'), data);
  service = await startContentService(join(dir, 'blob.bin'), 'image.sqfs');
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One raw request on its own connection: every byte the server wrote, as received. */
function raw(request: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(service.port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}

describe('parseRange', () => {
  it('reads closed, open-ended and suffix ranges and clamps the end', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-5', 100)).toEqual({ start: 95, end: 99 });
    expect(parseRange('bytes=50-1000', 100)).toEqual({ start: 50, end: 99 });
  });
  it('rejects ranges outside the file and ignores what it cannot parse', () => {
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=9-3', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(parseRange(undefined, 100)).toBeNull();
  });
});

describe('content service', () => {
  it('answers HEAD with the size and Accept-Ranges spelled as httpfs2 requires', async () => {
    service.reset();
    const answer = (await raw(`HEAD /image.sqfs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).toString();
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('Accept-Ranges: bytes');
    expect(answer).toContain(`Content-Length: ${SIZE}`);
    expect(service.read().contentBytes).toBe(0);
  });

  it('serves exact byte ranges and counts exactly the content it sent', async () => {
    service.reset();
    const ranges: [string, number, number][] = [
      ['bytes=10-19', 10, 20],
      ['bytes=-5', SIZE - 5, SIZE],
      ['bytes=99990-', 99_990, SIZE],
      ['bytes=4096-8191', 4096, 8192],
    ];
    let expected = 0;
    for (const [range, from, to] of ranges) {
      const response = await fetch(service.fileUrl, { headers: { Range: range } });
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${from}-${to - 1}/${SIZE}`);
      expect(Buffer.from(await response.arrayBuffer()).equals(data.subarray(from, to))).toBe(true);
      expected += to - from;
    }
    const counters = service.read();
    expect(counters.contentBytes).toBe(expected);
    expect(counters.bodyBytes).toBe(expected);
    expect(counters.requests).toBe(ranges.length);
    expect(counters.wireBytes).toBeGreaterThan(expected);
  });

  it('counts wire bytes equal to what the client received, and refuses unsatisfiable ranges', async () => {
    service.reset();
    const whole = await raw(`GET /image.sqfs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    const refused = await raw(`GET /image.sqfs HTTP/1.1\r\nHost: x\r\nRange: bytes=${SIZE}-\r\nConnection: close\r\n\r\n`);
    expect(refused.toString()).toMatch(/^HTTP\/1\.1 416/);
    expect(whole.subarray(whole.length - SIZE).equals(data)).toBe(true);
    const counters = service.read();
    expect(counters.contentBytes).toBe(SIZE);
    expect(counters.wireBytes).toBe(whole.length + refused.length);
    service.reset();
    expect(service.read()).toMatchObject({ requests: 0, contentBytes: 0, bodyBytes: 0, wireBytes: 0 });
  });
});
