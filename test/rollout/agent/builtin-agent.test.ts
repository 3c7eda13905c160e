/**
 * The built-in agent (experiments/rollout/agent/agent.py) against the real model service on the
 * host: it completes a built-in task (the candidate scores 1), its trajectory parses with the
 * replay parser, and model errors / lost connections / max turns exit with their distinct codes.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMiniSweAgent } from '../../../experiments/replay/parse/mini-swe-agent.ts';
import { BUILTIN_AGENT_EXIT, ROLLOUT_META_DIR, type RolloutTask } from '../../../experiments/rollout/task-contract.ts';
import { loadBuiltinTaskSet } from '../../../experiments/rollout/tasks/builtin.ts';
import { diffCandidate } from '../../../experiments/rollout/tasks/candidate-diff.ts';
import { parseModelScript, readModelJournal, startModelService, type ModelService } from '../../../services/model/index.ts';
import { scoreCandidate } from '../tasks/score-on-host.ts';

const AGENT = fileURLToPath(new URL('../../../experiments/rollout/agent/agent.py', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'sandbench-builtin-agent-'));
let service: ModelService;
let task: RolloutTask;

beforeAll(async () => {
  const set = await loadBuiltinTaskSet({ cacheDir: join(root, 'cache') });
  task = set.tasks.find((entry) => entry.id === 'csv-quoting')!;
  service = await startModelService({ script: task.scriptPath, socketDir: join(root, 'svc'), port: 0, slots: 2 });
});
afterAll(async () => {
  await service?.close();
  rmSync(root, { recursive: true, force: true });
});

function workspace(name: string): string {
  const dir = join(root, name);
  cpSync(task.repoDir, dir, { recursive: true });
  mkdirSync(join(dir, ROLLOUT_META_DIR));
  writeFileSync(join(dir, ROLLOUT_META_DIR, 'prompt.txt'), task.prompt);
  return dir;
}

function runAgent(cwd: string, baseUrl: string, extra: string[] = []) {
  return execa('python3', [AGENT, '--base-url', baseUrl, '--prompt-file', `${ROLLOUT_META_DIR}/prompt.txt`, '--trajectory', `${ROLLOUT_META_DIR}/trajectory.json`, ...extra], { cwd, reject: false, timeout: 60_000 });
}

describe('built-in agent', () => {
  it('completes a task against the model service: exit 0, the candidate scores 1, the trajectory parses', async () => {
    const work = workspace('right');
    const run = await runAgent(work, `http://127.0.0.1:${service.port}/t/${task.scriptTaskId('right')}/a/attempt-1`);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(BUILTIN_AGENT_EXIT.done);
    const out = join(root, 'right-candidate');
    const candidate = diffCandidate(task.repoDir, work, out, (rel) => rel === '.git' || rel === ROLLOUT_META_DIR);
    expect([...candidate.changed].sort()).toEqual(['tinycsv/reader.py', 'tinycsv/writer.py']);
    const score = await scoreCandidate(task, candidate, mkdtempSync(join(root, 'score-')));
    expect(score).toMatchObject({ reward: 1, failed: [] });

    const text = readFileSync(join(work, ROLLOUT_META_DIR, 'trajectory.json'), 'utf8');
    const history = parseMiniSweAgent(text);
    const calls = history.messages.flatMap((message) => (message.role === 'assistant' ? message.tool_calls : []));
    expect(calls.map((call) => (call.kind === 'shell' ? call.command : null))).toEqual(
      service.script.tasks.find((entry) => entry.id === 'csv-quoting')!.turns.flatMap((turn) => ('shell' in turn ? [turn.shell] : [])),
    );
    expect(history.messages.filter((message) => message.role === 'tool').every((message) => message.role === 'tool' && message.exit_code === 0)).toBe(true);
    const doc = JSON.parse(text);
    expect(doc.info).toMatchObject({ exit_status: 'Submitted', sandbench: { agent: 'sandbench-builtin-agent', turns: 5 } });

    // the service saw exactly the scripted turns 0..4, all attributed to this attempt
    const { entries } = readModelJournal(service.journalPath);
    const mine = entries.filter((entry) => entry.attempt === 'attempt-1');
    expect(mine.map((entry) => entry.turn)).toEqual([0, 1, 2, 3, 4]);
    expect(mine.every((entry) => entry.endpoint === 'chat' && entry.http_status === 200)).toBe(true);
  });

  it('exits 3 with one SANDBENCH_AGENT_ERROR line when the model answers 503', async () => {
    const failing = await startModelService({
      script: parseModelScript({ schema: 'sandbench-model-script/1', id: 'fail', tasks: [{ id: 't', turns: [{ shell: 'true' }, { fail: 503, message: 'overloaded' }] }] }, 'inline'),
      socketDir: join(root, 'svc-fail'),
      port: 0,
    });
    try {
      const work = workspace('fail');
      const run = await runAgent(work, `http://127.0.0.1:${failing.port}/t/t/a/x`);
      expect(run.exitCode).toBe(BUILTIN_AGENT_EXIT.modelError);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^SANDBENCH_AGENT_ERROR model_http_503: HTTP 503: .*overloaded/);
      const doc = JSON.parse(readFileSync(join(work, ROLLOUT_META_DIR, 'trajectory.json'), 'utf8'));
      expect(doc.info.exit_status).toBe('ModelError');
      expect(parseMiniSweAgent(JSON.stringify(doc)).messages.some((m) => m.role === 'tool')).toBe(true);
    } finally {
      await failing.close();
    }
  });

  it('exits 3 on a refused connection and 4 when max turns run out', async () => {
    const port = await freePort();
    const refused = await runAgent(workspace('refused'), `http://127.0.0.1:${port}/t/x`);
    expect(refused.exitCode).toBe(BUILTIN_AGENT_EXIT.modelError);
    expect(refused.stderr).toMatch(/^SANDBENCH_AGENT_ERROR model_connection: cannot connect to 127\.0\.0\.1:\d+/);

    const limited = await runAgent(workspace('limited'), `http://127.0.0.1:${service.port}/t/${task.scriptTaskId('right')}/a/limited`, ['--max-turns', '2']);
    expect(limited.exitCode).toBe(BUILTIN_AGENT_EXIT.maxTurns);
    expect(limited.stderr).toMatch(/SANDBENCH_AGENT_ERROR max_turns/);
    const bad = await runAgent(workspace('bad'), 'ftp://nowhere');
    expect(bad.exitCode).toBe(BUILTIN_AGENT_EXIT.agentError);
  });

  it('continues a resumed prefix (--resume-from) and its trajectory still parses', async () => {
    const cont = await startModelService({
      script: parseModelScript({ schema: 'sandbench-model-script/1', id: 'cont', tasks: [{ id: 't', turns: [{ shell: 'echo never' }, { text: 'continued' }] }] }, 'inline'),
      socketDir: join(root, 'svc-cont'),
      port: 0,
    });
    try {
      const work = workspace('resume');
      const history = join(work, ROLLOUT_META_DIR, 'history.json');
      const call = { id: 'call_replayed', type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: 'echo replayed' }) } };
      writeFileSync(history, JSON.stringify({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 'call_replayed', content: 'replayed' }] }));
      const run = await runAgent(work, `http://127.0.0.1:${cont.port}/t/t/a/resume`, ['--resume-from', history]);
      expect(run.exitCode).toBe(BUILTIN_AGENT_EXIT.done);
      const parsed = parseMiniSweAgent(readFileSync(join(work, ROLLOUT_META_DIR, 'trajectory.json'), 'utf8'));
      const calls = parsed.messages.flatMap((message) => (message.role === 'assistant' ? message.tool_calls : []));
      expect(calls.map((c) => (c.kind === 'shell' ? c.command : null))).toEqual(['echo replayed']);
      expect(readModelJournal(cont.journalPath).entries.map((entry) => entry.turn)).toEqual([1]);
    } finally {
      await cont.close();
    }
  });

  it('kills a tool command at its timeout and goes on', async () => {
    const slow = await startModelService({
      script: parseModelScript({ schema: 'sandbench-model-script/1', id: 'slow', tasks: [{ id: 't', turns: [{ shell: 'sleep 30; echo late' }, { text: 'gave up' }] }] }, 'inline'),
      socketDir: join(root, 'svc-slow'),
      port: 0,
    });
    try {
      const work = workspace('slow');
      const started = Date.now();
      const run = await runAgent(work, `http://127.0.0.1:${slow.port}/t/t`, ['--tool-timeout', '0.5']);
      expect(run.exitCode).toBe(BUILTIN_AGENT_EXIT.done);
      expect(Date.now() - started).toBeLessThan(20_000);
      const history = parseMiniSweAgent(readFileSync(join(work, ROLLOUT_META_DIR, 'trajectory.json'), 'utf8'));
      const tool = history.messages.find((message) => message.role === 'tool');
      expect(tool).toMatchObject({ exit_code: null });
      expect(tool && tool.role === 'tool' ? tool.output : '').toMatch(/timed out after 0.5 s/);
    } finally {
      await slow.close();
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
