/**
 * The run-code load generator in its own process (experiments/run-code/load-client.ts) at a small C
 * against the real server on host: every request comes back with verl's verdict, from a process that
 * is not this one, with that process's CPU and wall time over the loop.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutor } from '../../executors/registry.ts';
import { DEFAULT_STREAM_OPTIONS, generateStream } from '../../experiments/run-code/generate-stream.ts';
import { startLoadClient } from '../../experiments/run-code/load-client.ts';
import { openRunCodeService, type RunCodeService } from '../../services/run-code/index.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('run-code load client (separate process)', () => {
  let service: RunCodeService;
  const dir = tempDir('run-code-load-');

  beforeAll(async () => {
    service = await openRunCodeService({ executor: createExecutor('host', null)!, slots: 3, port: 0, journalPath: join(dir, 'journal.jsonl'), log: () => undefined });
  }, 300_000);
  afterAll(async () => {
    expect(await service?.close()).toEqual([]);
  }, 60_000);

  it('runs C = 3 clients over 9 requests and reports every verdict and its own CPU', async () => {
    const stream = generateStream({ ...DEFAULT_STREAM_OPTIONS, n: 200, runTimeoutS: 1 }).filter((entry) => entry.expect !== 'timeout').slice(0, 9);
    const requests = stream.map((entry, index) => ({ key: `r${index}`, entry }));
    const { observations, usage } = await startLoadClient({ url: service.server.url, concurrency: 3, requests }, join(dir, 'job.json')).done;
    expect(observations.size).toBe(9);
    for (const { key, entry } of requests) {
      const observation = observations.get(key)!;
      expect(observation.verdict, observation.clientError ?? '').toBe(entry.expect);
      expect(observation.http).toBe(200);
      expect(observation.requestId).toMatch(/^rc\d+$/);
      expect(observation.roundTripMs).toBeGreaterThan(0);
    }
    expect(usage.pid).not.toBe(process.pid);
    expect(usage.wallMs).toBeGreaterThan(0);
    expect(usage.cpuUserMs + usage.cpuSystemMs).toBeGreaterThan(0);
    expect(usage.maxRssKib).toBeGreaterThan(1000);
  }, 60_000);

  it("an endpoint that refuses the connection is verl's api_error for every request, with the client's error", async () => {
    const [entry] = generateStream({ ...DEFAULT_STREAM_OPTIONS, n: 1 });
    const { observations } = await startLoadClient({ url: 'http://127.0.0.1:9/run_code', concurrency: 2, requests: [{ key: 'a', entry: entry! }, { key: 'b', entry: entry! }] }, join(dir, 'refused.json')).done;
    expect([...observations.values()].map((o) => [o.verdict, o.http])).toEqual([['api_error', 0], ['api_error', 0]]);
    expect(observations.get('a')?.clientError).toBeTruthy();
  }, 30_000);
});
