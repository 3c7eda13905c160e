import { describe, expect, it } from 'vitest';
import type { ExitInfo, OutputLine } from '../../harness/contracts/executor.ts';
import type { ModelJournalEntry } from '../../services/model/index.ts';
import { exitSignal, judgeAgentTrial, type AgentObservation } from '../../experiments/agent/agent-judge.ts';

const MS = 1_000_000n;
const spawn = 1_000n * MS;

// The journal fields the judge reads (the service keeps adding timing fields; the judge ignores them).
function entry(seq: number, atMs: number, fields: Partial<ModelJournalEntry> = {}): ModelJournalEntry {
  return <ModelJournalEntry>{
    schema: 'sandbench-model-journal/1', seq, t_arrival_ns: String(spawn + BigInt(atMs) * MS), t_enqueued_ns: '0', t_service_start_ns: null, t_service_end_ns: null,
    wall_arrival: '', queue_wait_ms: 0, service_ms: 1, method: 'POST', path: '/v1/responses', endpoint: 'responses', stream: true, model: 'fake-model',
    script_id: 'marker', task_id: 'marker', attempt: 'b0000-host_codex', turn: seq - 1, reply: 'tool', tool_name: 'exec_command', tool_results: seq - 1, tokens: 3, queue_depth: 0, http_status: 200,
    status: 'ok', error: null, request_bytes: 1, request_sha256: 'x', response_bytes: 1, response_sha256: 'y', user_agent: 'codex_exec/0.169.0', ...fields,
  };
}
const exit = (code: number | null, atMs: number, extra: Partial<ExitInfo> = {}): ExitInfo => ({ exitCode: code, signal: null, timedOut: false, tExitNs: spawn + BigInt(atMs) * MS, ...extra });
const line = (text: string, atMs: number, stream: OutputLine['stream'] = 'stdout'): OutputLine => ({ stream, text, tNs: spawn + BigInt(atMs) * MS });

function observe(overrides: Partial<AgentObservation>): AgentObservation {
  return {
    tSpawnNs: spawn, exit: exit(0, 400), lines: [line('FORWARDER_READY', 50)], entries: [entry(1, 200), entry(2, 300)], scriptedTurns: 2,
    candidate: Buffer.from('fixture'), expectedCandidate: 'fixture', initDeadlineHit: false, initDeadlineMs: 90_000, ...overrides,
  };
}

describe('agent trial judge', () => {
  it('times first request, tool result, forwarder and exit on the host clock for a complete loop', () => {
    const verdict = judgeAgentTrial(observe({}));
    expect(verdict.outcome).toBe('ok');
    expect(verdict.metrics).toMatchObject({ first_request_ms: 200, tool_result_ms: 300, forwarder_ready_ms: 50, forwarder_to_first_request_ms: 150, completion_ms: 400, model_requests: 2, side_requests: 0 });
    expect(verdict.validity).toEqual({ exit_zero: 'pass', scripted_turns: 'pass', candidate_content: 'pass' });
  });

  it('a stop at the init deadline is failed/timeout with the wait recorded', () => {
    const verdict = judgeAgentTrial(observe({ entries: [], initDeadlineHit: true, exit: exit(null, 90_000, { signal: 'SIGTERM' }) }));
    expect(verdict).toMatchObject({ outcome: 'failed', category: 'timeout', failure: 'init_deadline' });
    expect(verdict.metrics.init_wait_ms).toBe(90_000);
    expect(verdict.metrics.first_request_ms).toBeUndefined();
  });

  it('SIGILL reported by the entry shell as 132 is a signal failure before any request', () => {
    const verdict = judgeAgentTrial(observe({ entries: [], exit: exit(132, 900), lines: [line('Illegal instruction', 880, 'stderr')] }));
    expect(verdict).toMatchObject({ outcome: 'failed', category: 'task_failed', failure: 'signal' });
    expect(verdict.facts.signal).toBe('SIGILL');
    expect(verdict.notes.join('\n')).toContain('Illegal instruction');
  });

  it('a CLI that exits without contacting the service is its own failure, not upstream_failed', () => {
    const verdict = judgeAgentTrial(observe({ entries: [], exit: exit(1, 500) }));
    expect(verdict).toMatchObject({ outcome: 'failed', category: 'task_failed', failure: 'no_model_contact' });
  });

  it('upstream_failed only for the model service failing; a script mismatch is setup_failed', () => {
    const closed = judgeAgentTrial(observe({ entries: [entry(1, 200, { status: 'service_closed', http_status: 503 })], exit: exit(1, 400) }));
    expect(closed).toMatchObject({ category: 'upstream_failed', failure: 'service_failed' });
    const mismatch = judgeAgentTrial(observe({ entries: [entry(1, 200, { status: 'tool_mismatch', http_status: 400, error: 'no shell tool' })], exit: exit(1, 400) }));
    expect(mismatch).toMatchObject({ category: 'setup_failed', failure: 'script_mismatch' });
    expect(mismatch.notes[0]).toContain('no shell tool');
  });

  it('exit 0 with a missing turn or wrong candidate bytes is invalid', () => {
    expect(judgeAgentTrial(observe({ entries: [entry(1, 200)] }))).toMatchObject({ outcome: 'invalid', failure: 'wrong_turns' });
    expect(judgeAgentTrial(observe({ candidate: Buffer.from('fixture\n') }))).toMatchObject({ outcome: 'invalid', failure: 'wrong_candidate' });
    expect(judgeAgentTrial(observe({ candidate: null }))).toMatchObject({ outcome: 'invalid', failure: 'wrong_candidate' });
  });

  it('side calls are counted apart from model requests', () => {
    const verdict = judgeAgentTrial(observe({ entries: [entry(1, 100, { endpoint: 'head', method: 'HEAD', path: '/api/hello', turn: null }), entry(2, 200, { turn: 0, tool_results: 0 }), entry(3, 300, { turn: 1, tool_results: 1 })] }));
    expect(verdict.metrics).toMatchObject({ model_requests: 2, side_requests: 1, first_request_ms: 100 });
    expect(verdict.facts.side_calls).toEqual(['HEAD /api/hello 200']);
  });

  it('exit signals from the process or a 128+N status', () => {
    expect(exitSignal(exit(null, 1, { signal: 'SIGKILL' }))).toBe('SIGKILL');
    expect(exitSignal(exit(139, 1))).toBe('SIGSEGV');
    expect(exitSignal(exit(1, 1))).toBeNull();
  });
});
