/**
 * Answers longer than a transport's line (a VM serial console splits lines over 200 characters):
 * the fork attempt program, told a line limit, sends a long answer as continuation lines, and the
 * host's line channel joins them into the one answer, in order with the short ones around it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { continuationPrefix } from '../../executors/checkpoint/line-channel.ts';
import { spawnStateProcess, stopStateProcess } from '../../executors/checkpoint/state-process.ts';
import { untar } from '../../experiments/rollout-step/fork-group.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const PROGRAM = join(PROJECT_ROOT, 'experiments', 'rollout-step', 'fork-program', 'attempt_server.py');
const LINE_MAX = 60;

describe('line channel with continuation lines', () => {
  it('joins a long answer sent in parts of at most the line limit, between short answers', async () => {
    const workspace = join(tempDir('sandbench-line-channel-'), 'ws');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(workspace, 'README.md'), '# base\n');
    const program = spawnStateProcess({
      runId: 'line-channel-test',
      argv: ['python3', '-u', PROGRAM, '--workspace', workspace, '--line-max', String(LINE_MAX)],
      env: { PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 30_000,
      prefix: 'ATTEMPT ',
      describe: 'attempt program',
    });
    try {
      await program.channel.ready;
      expect(await program.channel.request({ op: 'prepare' })).toMatchObject({ ok: true, prepared: true });
      // a line with trailing spaces: a part must not lose them
      const content = `${'word  '.repeat(200)}\n`;
      const answer = await program.channel.request({ op: 'run', argv: ['/bin/sh', '-c', 'printf "%s" "$BODY" > notes.txt'], env: { BODY: content }, timeout_s: 10 });
      expect(answer.exit_code).toBe(0);
      expect(answer.changed).toEqual(['notes.txt']);
      expect(untar(Buffer.from(String(answer.tar), 'base64')).get('notes.txt')?.toString()).toBe(content);
      expect(await program.channel.request({ op: 'sync' })).toMatchObject({ ok: true, synced: true });
      const stdout = program.running.lines.filter((line) => line.stream === 'stdout').map((line) => line.text);
      expect(stdout.filter((text) => text.startsWith(continuationPrefix('ATTEMPT '))).length).toBeGreaterThan(10);
      expect(Math.max(...stdout.map((text) => text.length))).toBeLessThanOrEqual(LINE_MAX);
    } finally {
      await stopStateProcess(program);
    }
  });
});
