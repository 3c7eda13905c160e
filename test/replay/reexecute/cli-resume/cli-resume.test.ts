/**
 * Continuation through a real CLI's native resume (issue 19): the bridges from the pinned-format
 * trajectories (codex 0.149.0, Claude Code 2.1.220) to the layers' sessions (codex 0.169.0, Claude
 * Code 2.1.332) (pure), what a request body says about the prefix it carried (pure), and real
 * trials per CLI: the replay on the host and staged backends, then the agent layer's CLI resuming the
 * seeded session against a real model service. The continuation must send the REPLAYED fresh
 * observation and the whole prefix; a client sending the historical one is judged historical; a
 * session the CLI cannot read is setup_failed with the CLI's own message, not a crash.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExperimentContext } from '../../../../harness/contracts/experiment-kind.ts';
import type { Executor, RunContext, TrialContext } from '../../../../harness/contracts/executor.ts';
import { plannedRecord } from '../../../../harness/journal/record-base.ts';
import { CleanupRegistry } from '../../../../harness/run/cleanup-registry.ts';
import { stateDir } from '../../../../harness/state-dir.ts';
import { ensureTaskImage } from '../../../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../../../harness/spec/schema.ts';
import { createExecutor } from '../../../../executors/registry.ts';
import { startModelService, type ModelService } from '../../../../services/model/index.ts';
import { cachedLayer, ensureLayer } from '../../../../experiments/agent/layers.ts';
import type { CanonicalMessage } from '../../../../experiments/replay/canonical-history.ts';
import { GENERATORS } from '../../../../experiments/replay/generate/index.ts';
import { buildResumeSupport, cliContinuationJudge, resumeTask, type ResumeSupport } from '../../../../experiments/replay/reexecute/cli-resume/cli-continuation.ts';
import { claudeTemplateForEntry } from '../../../../experiments/replay/reexecute/cli-resume/claude-session.ts';
import { RESUME_CLIS, type ResumeCli } from '../../../../experiments/replay/reexecute/cli-resume/resume-clis.ts';
import { CodexSessionError, codexSessionTemplate, templateForEntry, unwrapExecOutput } from '../../../../experiments/replay/reexecute/cli-resume/codex-session.ts';
import { sentAnthropicPrefix, sentPrefix } from '../../../../experiments/replay/reexecute/cli-resume/request-prefix.ts';
import { continuationScript, continueTaskId } from '../../../../experiments/replay/reexecute/continuation.ts';
import { effectsTask } from '../../../../experiments/replay/reexecute/effects-task.ts';
import { buildReplayInputs, type PrefixInput, type ReplayInputs } from '../../../../experiments/replay/reexecute/replay-inputs.ts';
import { runReplayOnly } from '../../../../experiments/replay/reexecute/replay-only-trial.ts';
import { writeBaseline, type FixtureEntry } from '../../../../experiments/replay/replay-fixtures.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-codex-resume-test-'));
const task = effectsTask(0, 20261006);
function fixtureEntry(agent: 'codex' | 'claude-code'): FixtureEntry {
  const text = GENERATORS[agent](task);
  const path = join(root, `${agent}-task-0.jsonl`);
  writeFileSync(path, text);
  return { agent, index: 0, path, bundlePath: `${agent}-task-0.jsonl`, sha256: createHash('sha256').update(text).digest('hex'), task, workspace: join(root, 'baseline'), workspaceDigest: '' };
}
const entry = fixtureEntry('codex');
const claudeEntry = fixtureEntry('claude-code');

describe('the bridge: codex 0.149.0 trajectory → canonical history → codex 0.169.0 session', () => {
  it('writes the prompt, each turn text, call and result slot, and names what it bridged', () => {
    const template = templateForEntry(entry, '0.169.0');
    expect(template.cli_version).toBe('0.169.0');
    expect(template.bridged_from).toMatchObject({ format: 'codex', recorded_version: '0.149.0', after_step: 7 });
    expect(template.calls).toHaveLength(7);
    expect(template.items).toHaveLength(1 + 7 * 3);
    expect(template.items[0]).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: task.userText }] });
    const call = template.items.find((i) => i.type === 'function_call')!;
    expect(call).toMatchObject({ name: 'exec_command', arguments: JSON.stringify({ cmd: task.turns[0]!.command }) });
    expect(template.items.filter((i) => i.type === 'function_call_output').every((i) => i.type === 'function_call_output' && i.output === null)).toBe(true);
  });

  it('a non-shell call has no place in codex exec_command: a named error', () => {
    const messages: CanonicalMessage[] = [
      { role: 'user', text: 'x', native_ref: 'line 1' },
      { role: 'assistant', text: null, tool_calls: [{ id: 'c1', native_name: 'apply_patch', kind: 'other', arguments: {} }], native_ref: 'line 2' },
    ];
    expect(() => codexSessionTemplate(messages, { recorded_version: null, modelled_version: '0.149.0', session_id: null, after_step: 1 }, '0.169.0')).toThrow(CodexSessionError);
  });

  it('reads the shell output out of the unified-exec envelope', () => {
    expect(unwrapExecOutput('Chunk ID: ab12cd\nWall time: 0.0012 seconds\nProcess exited with code 3\nOriginal token count: 1\nOutput:\nhi\n')).toEqual({ output: 'hi\n', exitCode: 3 });
    expect(unwrapExecOutput('plain output')).toBeNull();
  });

  it('counts the prefix a request body carried, in order, and stops at the first gap', () => {
    const calls = ['a', 'b', 'c'];
    const env = (text: string) => `Wall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n${text}`;
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'the prompt' }] },
      { type: 'function_call', call_id: 'a' }, { type: 'function_call_output', call_id: 'a', output: env('A') },
      { type: 'function_call', call_id: 'b' }, { type: 'function_call_output', call_id: 'b', output: 'raw B' },
      { type: 'function_call', call_id: 'c' },
    ];
    const sent = sentPrefix(JSON.stringify({ input }), calls, 'the prompt');
    expect(sent).toMatchObject({ prefixCallsSent: 2, toolResults: 2, promptSent: true });
    expect(sent.outputs.get('a')).toEqual({ output: 'A', exitCode: 0, enveloped: true });
    expect(sent.outputs.get('b')).toEqual({ output: 'raw B', exitCode: null, enveloped: false });
    expect(sentPrefix('not json', calls, 'the prompt').prefixCallsSent).toBe(0);
  });

  it('Claude Code 2.1.220 → 2.1.332: one event per message, tool-result slots, the whole prefix counted from a Messages body', () => {
    const template = claudeTemplateForEntry(claudeEntry, '2.1.332');
    expect(template.bridged_from).toMatchObject({ format: 'claude-code', recorded_version: '2.1.220', after_step: 7 });
    expect(template.calls).toHaveLength(7);
    expect(template.messages[0]).toEqual({ role: 'user', content: task.userText });
    expect(template.messages).toHaveLength(1 + 7 * 2);
    const messages = [
      { role: 'user', content: 'the prompt' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Bash', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'A' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'Bash', input: {} }] },
    ];
    const sent = sentAnthropicPrefix(JSON.stringify({ messages }), ['a', 'b'], 'the prompt');
    expect(sent).toMatchObject({ prefixCallsSent: 1, toolResults: 1, promptSent: true });
    expect(sent.outputs.get('a')?.output).toBe('A');
  });
});

interface CliCase {
  cli: ResumeCli;
  entry: FixtureEntry;
  /** A request body a client would send with these tool results (for the negative control). */
  body(input: PrefixInput, output: (call: PrefixInput['calls'][number]) => string): { path: string; body: unknown };
  /** A template the CLI cannot read, and the CLI's refusal in its own words. */
  unreadable(template: Record<string, unknown>): Record<string, unknown>;
  refusal: RegExp;
}

const CASES: CliCase[] = [
  {
    cli: RESUME_CLIS.codex,
    entry,
    body: (input, output) => {
      const items: unknown[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: task.userText }] }];
      for (const call of input.calls) items.push({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: call.command }), call_id: call.id }, { type: 'function_call_output', call_id: call.id, output: `Chunk ID: 000000\nWall time: 0.0010 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\n${output(call)}` });
      return { path: '/v1/responses', body: { model: 'fake-model', input: items, tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } }], stream: false } };
    },
    // a session_meta codex 0.169.0 cannot deserialize (cli_version must be a string)
    unreadable: (template) => ({ ...template, cli_version: 169 }),
    refusal: /codex refused the seeded session.*does not start with session metadata/,
  },
  {
    cli: RESUME_CLIS.claude,
    entry: claudeEntry,
    body: (input, output) => {
      const messages: unknown[] = [{ role: 'user', content: task.userText }];
      for (const call of input.calls) messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: 'Bash', input: { command: call.command } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: output(call) }] });
      return { path: '/v1/messages', body: { model: 'fake-model', max_tokens: 100, messages, tools: [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }], stream: false } };
    },
    // no user or assistant event, only a queue-operation line: nothing Claude Code can resume
    unreadable: (template) => ({ ...template, messages: [{ role: 'queue-operation', content: 'nothing to resume' }] }),
    refusal: /claude refused the seeded session.*No conversation found/,
  },
];


// codex's layer is built by setup.sh (ensureLayer builds it otherwise); Claude Code's only by
// scripts/build-agent-layers.sh claude (384 MB from npm), so its block says so when it is absent
for (const { cli, entry, body: requestBody, unreadable, refusal } of CASES) {
  const missing = cli.name !== 'codex' && cachedLayer(stateDir(), cli.agent) === null;
  describe.skipIf(missing)(`${cli.name}: native resume of a session seeded from the replayed prefix (real CLI, real model service)${missing ? ` — skipped: no ${cli.agent.name} ${cli.agent.version} layer (scripts/build-agent-layers.sh ${cli.agent.name})` : ''}`, () => {
  let service: ModelService;
  let inputs: ReplayInputs;
  let input: PrefixInput;
  let support: ResumeSupport;
  let image: RunContext['image'];
  const staged = createExecutor('staged', null)!;
  const bodiesPath = join(root, `${cli.name}-model-requests.jsonl`);
  beforeAll(async () => {
    await writeBaseline(entry.workspace, task);
    image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
    inputs = buildReplayInputs(join(root, `${cli.name}-scratch`), [entry], true);
    input = inputs.prefixes.get(`${entry.agent}/0`)!;
    const layer = await ensureLayer(stateDir(), cli.agent, () => undefined);
    support = buildResumeSupport(join(root, `${cli.name}-resume`), [input], layer, cli);
    service = await startModelService({ script: continuationScript([input]), socketDir: join(root, `${cli.name}-model`), port: 0, slots: 2, journalPath: join(root, `${cli.name}-model-journal.jsonl`), requestBodiesPath: bodiesPath });
  }, 600_000);
  afterAll(async () => {
    await service?.close();
    await staged.teardown();
  });

  async function trial(name: string, executor: Executor) {
    const cleanup = new CleanupRegistry(name);
    const run: RunContext = { runId: name, image, cleanup, log: () => undefined, stateDir: root, options: {} };
    const ctx = { run, spec: {}, bundleDir: root, executorFor: () => executor } as unknown as ExperimentContext;
    await executor.prepare(run);
    const trialDir = join(root, `${cli.name}-${name}`);
    mkdirSync(trialDir, { recursive: true });
    const t: TrialContext = { run, trialId: name, baselineWorkspace: entry.workspace, trialDir, timeoutMs: 60_000, controls: { cpus: null, memoryMiB: null }, budget: null };
    const serviceRef = { name: 'model', socketPath: service.socketPath, ...(service.port ? { tcp: { host: '127.0.0.1', port: service.port } } : {}) };
    const command = resumeTask(support, input, inputs.mount, `/t/${continueTaskId(input)}/a/${name}`, serviceRef);
    const continuation = cliContinuationJudge(input, support, service.journalPath, bodiesPath, name);
    const planned = { trial_id: name, block: 0, position: 0, warmup: false, arm: { backend: 'host', variant: 'codex' }, seed: 1 };
    try {
      return await runReplayOnly({ planned, ctx, input, task: command, executor, trial: t, continuation, record: plannedRecord(name, 'replay', planned) });
    } finally {
      await executor.finishTrial(t);
      await cleanup.releaseAll();
    }
  }

  const expectContinued = (record: Awaited<ReturnType<typeof trial>>) => {
    expect(record.outcome, JSON.stringify(record.notes)).toBe('ok');
    expect(record.facts.continuation_saw).toBe('replayed');
    expect(record.facts.continuation_whole_prefix).toBe(true);
    expect(record.facts.continuation_first_request_tool_results).toBe(7);
    expect(record.facts.continuation_turns_answered).toEqual([7, 8]);
    expect(record.metrics.continuation_first_request_ms).toBeGreaterThan(0);
    expect(record.metrics.continuation_seed_ms).toBeGreaterThan(0);
    expect(record.metrics.continuation_seed_ms).toBeLessThan(record.metrics.continuation_first_request_ms!);
  };

  it('host: the CLI continues from the replayed prefix, sends the replayed fresh observation and the whole prefix', async () => {
    expectContinued(await trial('host-ok', createExecutor('host', null)!));
  }, 90_000);

  it('staged: the same inside bubblewrap, through the forwarder', async (t) => {
    const probe = await staged.probe();
    if (!probe.available) t.skip();
    expectContinued(await trial('staged-ok', staged));
  }, 90_000);

  it('negative control: a client that sends the HISTORICAL fresh observation is judged historical, not replayed', async () => {
    const attempt = `neg-historical-${cli.name}`;
    const tSpawnNs = process.hrtime.bigint();
    const request = requestBody(input, (call) => call.observation);
    const response = await fetch(`http://127.0.0.1:${service.port}/t/${continueTaskId(input)}/a/${attempt}${request.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request.body) });
    expect(response.status, await response.text()).toBe(200);
    // the replay produced fresh output for the fresh call, the recorded text for every other
    const report = { calls: input.calls.map((c, index) => ({ index, id: c.id, exitCode: 0, durationMs: 1, output: c.fresh ? '2099-01-01T00:00:00.000000000Z\n' : c.observation })), ready: [], results: [], problems: [] };
    const lines = [{ stream: 'stdout' as const, text: 'CONTINUE_START', tNs: tSpawnNs }];
    const running = { tSpawnNs, lines, exit: Promise.resolve({ exitCode: 0, signal: null, tExitNs: process.hrtime.bigint(), timedOut: false }) } as never;
    const verdict = await cliContinuationJudge(input, support, service.journalPath, bodiesPath, attempt).judge(lines, running, {} as never, report);
    expect(verdict.facts.continuation_saw).toBe('historical');
    expect(verdict.validity.continuation_saw_replayed).toBe('fail');
    expect(verdict.facts.continuation_prefix_calls_sent).toBe(7);
  });

  it('a session the CLI cannot read is setup_failed with the CLI\'s own message, not a crash', async () => {
    const path = support.templates.get(`${entry.agent}/0`)!.target.replace(support.mount.target, support.mount.source);
    const good = readFileSync(path, 'utf8');
    writeFileSync(path, JSON.stringify(unreadable(JSON.parse(good))));
    try {
      const record = await trial('host-refused', createExecutor('host', null)!);
      expect(record.outcome).toBe('failed');
      expect(record.failure_category).toBe('setup_failed');
      expect(record.facts.continuation_failure).toBe('session_refused');
      expect(record.notes.join(' ')).toMatch(refusal);
    } finally {
      writeFileSync(path, good);
    }
  }, 90_000);
  });
}

afterAll(() => rmSync(root, { recursive: true, force: true }));
