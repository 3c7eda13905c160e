/**
 * The run-code kind's pure parts: verl's verdict rules, the stream (generated and recorded), the
 * plan's pairing of requests across cells.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStream, requestBody, verlVerdict } from '../../experiments/run-code/request-stream.ts';
import { generateStream, DEFAULT_STREAM_OPTIONS } from '../../experiments/run-code/generate-stream.ts';
import { buildRunCodePlan, requestParams } from '../../experiments/run-code/run-code-plan.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ok = (stdout: string) => JSON.stringify({ status: 'Success', run_result: { status: 'Finished', return_code: 0, stdout } });

describe("verlVerdict: verl 0.9.1's _process_single_case rules", () => {
  it('compares stdout with trailing newlines stripped, and treats a missing expectation as success', () => {
    expect(verlVerdict(200, ok('42\n\n'), '42')).toBe('success');
    expect(verlVerdict(200, ok('41\n'), '42\n')).toBe('wrong_answer');
    expect(verlVerdict(200, ok('anything'), null)).toBe('success');
  });
  it('maps Failed runs, SandboxError and HTTP failures as verl does', () => {
    expect(verlVerdict(200, JSON.stringify({ status: 'Failed', run_result: { status: 'TimeLimitExceeded', return_code: -9 } }), 'x')).toBe('timeout');
    expect(verlVerdict(200, JSON.stringify({ status: 'Failed', run_result: { status: 'Finished', return_code: 3 } }), 'x')).toBe('runtime_error');
    expect(verlVerdict(200, JSON.stringify({ status: 'Failed', compile_result: { status: 'Finished', return_code: 1 }, run_result: null }), 'x')).toBe('compile_error');
    expect(verlVerdict(200, JSON.stringify({ status: 'SandboxError' }), 'x')).toBe('sandbox_error');
    expect(verlVerdict(400, JSON.stringify({ status: 'SandboxError' }), 'x')).toBe('api_error');
    expect(verlVerdict(200, 'not json', 'x')).toBe('api_error');
  });
  it("sends verl's exact request fields", () => {
    const [entry] = generateStream({ ...DEFAULT_STREAM_OPTIONS, n: 1 });
    expect(Object.keys(JSON.parse(requestBody(entry!)))).toEqual(['compile_timeout', 'run_timeout', 'code', 'stdin', 'memory_limit_MB', 'language', 'files', 'fetch_files']);
  });
});

describe('request streams', () => {
  it('the generator is deterministic per seed and mixes the verdicts verl sees', () => {
    const a = generateStream(DEFAULT_STREAM_OPTIONS);
    expect(generateStream(DEFAULT_STREAM_OPTIONS)).toEqual(a);
    expect(new Set(a.map((entry) => entry.expect))).toEqual(new Set(['success', 'wrong_answer', 'runtime_error', 'timeout']));
  });
  it('the shipped stream is the generator output for its documented options', () => {
    expect(loadStream(join(PROJECT_ROOT, 'data', 'run-code', 'stream-verl-shaped.jsonl'))).toEqual(generateStream(DEFAULT_STREAM_OPTIONS));
  });
  it('reads a serve run-code journal as a stream, skipping requests that never ran', () => {
    const entries = loadStream(join(PROJECT_ROOT, 'data', 'run-code', 'recorded-journal-sample.jsonl'));
    expect(entries.length).toBeGreaterThan(5);
    expect(entries.every((entry) => entry.expected_stdout === null)).toBe(true);
    // Recorded outcomes become the expected verdicts; requests that never ran a program (bad input, killed sandboxes) are not load.
    expect(entries.map((entry) => entry.expect)).toEqual(expect.arrayContaining(['success', 'timeout', 'runtime_error']));
  });
  it('names the file and line of a bad entry', () => {
    const file = join(tempDir('stream-'), 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify({ schema: 'sandbench-run-code-stream/1', id: 'x' })}\n`);
    expect(() => loadStream(file)).toThrow(/bad\.jsonl:1: .*language/);
  });
});

describe('the run-code plan', () => {
  it('request k is the same stream entry in every cell of a block, and cells are shuffled per block', () => {
    const spec = parseSpec({ name: 't', experiment: 'run-code', arms: [{ backend: 'host' }, { backend: 'staged' }], warmups: 0, trials: 2, seed: 3, run_code: { stream: 'data/run-code/stream-verl-shaped.jsonl', concurrency: [1, 8], requests: 4 } });
    const plan = buildRunCodePlan(spec, 512);
    expect(plan.trials).toHaveLength(2 * 2 * 2 * 4);
    for (const block of [0, 1]) {
      const entries = new Map<number, Set<number>>();
      for (const trial of plan.trials.filter((t) => t.block === block)) {
        const params = requestParams(trial);
        if (!entries.has(params.request)) entries.set(params.request, new Set());
        entries.get(params.request)!.add(params.entry);
      }
      expect([...entries.values()].every((set) => set.size === 1)).toBe(true);
    }
    const entryOf = (block: number) => requestParams(plan.trials.find((t) => t.block === block)!).entry;
    expect(entryOf(0)).not.toBe(entryOf(1));
  });
});
