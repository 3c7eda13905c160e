/** `sandbench model serve` as a process: READY line, serving on socket and port, clean stop on SIGTERM, bad input exit 2. */
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../../bin/sandbench.mjs');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('serves the shipped marker script until SIGTERM, then removes its socket and keeps the journal', async () => {
  const socket = join(dir, 'model.sock');
  const child = execa('node', [BIN, 'model', 'serve', '--script', 'marker', '--socket', socket, '--port', '0', '--slots', '2', '--base-ms', '1'], { reject: false });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^MODEL_SERVICE_READY (.*)$/m.exec(out);
      if (match) resolve(JSON.parse(match[1]));
    });
    void child.then((result) => reject(new Error(`serve exited early: ${result.stderr}`)));
  });
  expect(ready).toMatchObject({ script_id: 'marker', socket, slots: 2, base_ms: 1, journal: join(dir, 'model-journal.jsonl') });
  const models = await fetch(`http://127.0.0.1:${ready.port}/v1/models`);
  expect((await models.json()).data[0].id).toBe('fake-model');
  child.kill('SIGTERM');
  const result = await child;
  expect(result.exitCode).toBe(0);
  expect(result.stderr).toMatch(/model service stopped: \{"slots":2,"uptimeMs":[\d.]+,"requests":1,/);
  expect(existsSync(socket)).toBe(false);
  expect(JSON.parse(readFileSync(join(dir, 'model-journal.jsonl'), 'utf8'))).toMatchObject({ endpoint: 'models', status: 'ok' });
});

it('bad input exits 2 with one line naming the file and field', async () => {
  const script = join(dir, 'bad.yaml');
  writeFileSync(script, 'schema: sandbench-model-script/1\nid: bad\ntasks:\n  - id: t\n    turns: []\n');
  const [bad, missing, slots] = await Promise.all([
    execa('node', [BIN, 'model', 'serve', '--script', script, '--socket', join(dir, 'x.sock')], { reject: false }),
    execa('node', [BIN, 'model', 'serve', '--script', 'no-such-script'], { reject: false }),
    execa('node', [BIN, 'model', 'serve', '--script', 'marker', '--slots', '0'], { reject: false }),
  ]);
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toMatch(new RegExp(`^sandbench: ${script}: field tasks\\[0\\]\\.turns: `));
  expect(missing.exitCode).toBe(2);
  expect(missing.stderr).toMatch(/--script no-such-script: no such file, and no shipped script/);
  expect(slots.exitCode).toBe(2);
  expect(slots.stderr).toMatch(/--slots 0: expected a positive whole number/);
});
