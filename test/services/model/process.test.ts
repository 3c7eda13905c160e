/**
 * The service in its own process: same interface, stats from its journal, clean close, and no
 * orphan when the parent is killed with -9 (the child exits when its stdin closes).
 */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readModelJournal, startModelServiceProcess } from '../../../services/model/index.ts';
import { codexRequest } from './cli-requests.ts';
import { parseSse, send } from './client.ts';

const SCRIPT = join(import.meta.dirname, '../../../data/model-scripts/marker.yaml');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-proc-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('serves, journals and reports stats from its journal; close removes the socket', async () => {
  const service = await startModelServiceProcess({ script: SCRIPT, socketDir: join(dir, 'a'), slots: 2, baseMs: 20, port: 0 });
  try {
    const reply = await send(service.socketPath, 'POST', '/v1/responses', codexRequest(1));
    expect(parseSse(reply.body).at(-1)!.event).toBe('response.completed');
    expect((await fetch(`http://127.0.0.1:${service.port}/v1/models`)).status).toBe(200);
    const stats = service.stats();
    expect(stats).toMatchObject({ slots: 2, requests: 2, generations: 1, byStatus: { ok: 2 }, maxQueued: 0, active: null, queued: null });
    expect(stats.busySlotMs).toBeGreaterThanOrEqual(20);
  } finally {
    await service.close();
  }
  expect(existsSync(service.socketPath)).toBe(false);
  expect(readModelJournal(service.journalPath).entries.map((entry) => entry.endpoint)).toEqual(['responses', 'models']);
});

it('a bad script is refused before anything is spawned; a taken socket is the child\'s clear error', async () => {
  await expect(startModelServiceProcess({ script: join(dir, 'absent.yaml'), socketDir: join(dir, 'b') })).rejects.toThrow(/absent\.yaml: cannot read the model script/);
  const first = await startModelServiceProcess({ script: SCRIPT, socketDir: join(dir, 'c') });
  try {
    await expect(startModelServiceProcess({ script: SCRIPT, socketDir: join(dir, 'c') })).rejects.toThrow(/already has a live server/);
  } finally {
    await first.close();
  }
});

it('exits when its parent is killed with -9, removing its socket', async () => {
  const socket = join(dir, 'orphan', 'model.sock');
  const parentCode = `const { startModelServiceProcess } = await import(${JSON.stringify(join(import.meta.dirname, '../../../services/model/index.ts'))});
    await startModelServiceProcess({ script: ${JSON.stringify(SCRIPT)}, socketPath: ${JSON.stringify(socket)} });
    process.stdout.write('UP\\n'); setInterval(() => {}, 1000);`;
  const parent = execa('node', ['--import', 'tsx', '--input-type=module', '-e', parentCode], { reject: false, cwd: join(import.meta.dirname, '../../..') });
  await new Promise<void>((resolve, reject) => {
    parent.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('UP') && resolve());
    void parent.then((result) => reject(new Error(`parent exited: ${result.stderr}`)));
  });
  expect(existsSync(socket)).toBe(true);
  parent.kill('SIGKILL');
  await parent;
  const deadline = Date.now() + 20_000;
  while (existsSync(socket) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(existsSync(socket)).toBe(false);
  // nor its temporary copy of the script
  expect(readdirSync(tmpdir()).filter((name) => name.startsWith('sandbench-model-script-'))).toEqual([]);
});
