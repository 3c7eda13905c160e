/**
 * Model service bench: how precisely the service holds its configured capacity, and what it
 * costs per request when it is told to cost nothing.
 *   1. queue precision — slots 2, bursts of 6 concurrent requests: each queued request's measured
 *      wait against the wait predicted from the configured service time alone
 *      (ideal start_k = start_{k mod 2} + ⌊k/2⌋ × S), goal |error| ≤ 5 ms (issue 15);
 *   2. lateness — each reply's end against its due end (scheduled start + base_ms + per_token_ms ×
 *      tokens; the schedule hands a slot over at its previous reply's due end, so lateness does not
 *      accumulate along the queue: capacity.ts);
 *   3. overhead — base 0, per-token 0: client round trip per protocol over the Unix socket.
 * 1 and 2 run for each placement: the service in the bench's own process (how kinds embed it),
 * in its own process (startModelServiceProcess), and — as root — in its own process at priority
 * −10, which shows how much co-located client work and the machine's run queue perturb it.
 * Every figure prints n, median with its order-statistic 95% CI, P95, max and the load average.
 * Run: `npm run bench -- model` (or `node --import tsx bench/model.bench.ts`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { medianOrderStatisticCi } from '../harness/stats/median-ci.ts';
import { quantileSorted } from '../harness/stats/quantile.ts';
import { parseModelScript, startModelService, startModelServiceProcess, type ModelJournalEntry } from '../services/model/index.ts';

export const MODEL_BENCH_GOALS = { queueWaitErrorMs: 5 } as const;

const SCRIPT = parseModelScript({ schema: 'sandbench-model-script/1', id: 'bench', tasks: [{ id: 'bench', turns: [{ shell: 'printf fixture > marker.txt', tokens: 10 }, { text: 'done', tokens: 10 }] }] }, 'bench');
const BASH_TOOL = { type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } };

function post(socketPath: string, path: string, body: unknown): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const chatBody = (tag: string, stream: boolean) => ({ model: 'm', stream, messages: [{ role: 'user', content: tag }], tools: [BASH_TOOL] });
const BODIES: Record<string, [string, (tag: string) => unknown]> = {
  responses: ['/v1/responses', (tag) => ({ model: 'm', stream: true, input: [{ type: 'message', role: 'user', content: tag }], tools: [{ type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } }] })],
  'chat (stream)': ['/v1/chat/completions', (tag) => chatBody(tag, true)],
  'chat (json)': ['/v1/chat/completions', (tag) => chatBody(tag, false)],
  anthropic: ['/v1/messages', (tag) => ({ model: 'm', stream: true, max_tokens: 100, messages: [{ role: 'user', content: tag }], tools: [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } }] })],
};

export interface Figure {
  label: string;
  n: number;
  median: number;
  ciLow: number | null;
  ciHigh: number | null;
  min: number;
  p95: number;
  max: number;
  unit: string;
}

function figure(label: string, values: number[], unit = 'ms'): Figure {
  const sorted = [...values].sort((a, b) => a - b);
  const ci = medianOrderStatisticCi(sorted);
  return { label, n: values.length, median: quantileSorted(sorted, 0.5), ciLow: ci?.low ?? null, ciHigh: ci?.high ?? null, min: sorted[0], p95: quantileSorted(sorted, 0.95), max: sorted[sorted.length - 1], unit };
}

export function formatFigure(f: Figure): string {
  const ci = f.ciLow === null ? 'CI n/a' : `95% CI [${f.ciLow.toFixed(3)}, ${f.ciHigh!.toFixed(3)}]`;
  return `  ${f.label.padEnd(48)} n=${String(f.n).padEnd(4)} median ${f.median.toFixed(3)} ${f.unit} ${ci}  min ${f.min.toFixed(3)}  P95 ${f.p95.toFixed(3)}  max ${f.max.toFixed(3)}`;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const readJournal = (path: string): ModelJournalEntry[] => readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
const ns = (value: string | null) => BigInt(value!);

export interface QueuePrecision {
  /** Where the service ran relative to the clients. */
  placement: 'in-process' | 'separate process' | 'separate process, priority −10';
  /** Per chain depth: waits of one service time (k = 2, 3), two (k = 4, 5), … */
  queueError: Figure[];
  queueAbsError: Figure;
  serviceError: Figure;
  failures: number;
}

export interface ModelBenchResult {
  serviceMs: number;
  precision: QueuePrecision[];
  overhead: Figure[];
  failures: number;
  loadBefore: string;
  loadAfter: string;
}

interface QueueOptions {
  rounds: number;
  burst: number;
  serviceMs: number;
}

/** Bursts of concurrent requests; returns how many failed at the client. */
async function fireBursts(socketPath: string, options: QueueOptions): Promise<number> {
  let failures = 0;
  for (let round = 0; round < options.rounds; round += 1) {
    await Promise.all(Array.from({ length: options.burst }, (_, index) => post(socketPath, '/v1/chat/completions', chatBody(`r${round}-${index}`, true)).catch(() => void (failures += 1))));
  }
  return failures;
}

/** Each queued request's wait against the wait the configured service time predicts (ideal start_k = start_{k mod 2} + ⌊k/2⌋ × S). */
function queuePrecision(placement: QueuePrecision['placement'], entries: ModelJournalEntry[], options: QueueOptions, clientFailures: number): QueuePrecision {
  const failures = clientFailures + entries.filter((entry) => entry.status !== 'ok').length;
  const ok = entries.filter((entry) => entry.status === 'ok');
  const errors: number[] = [];
  const byDepth = new Map<number, number[]>();
  const serviceErrors: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const group = ok.slice(round * options.burst, (round + 1) * options.burst).sort((a, b) => Number(ns(a.t_enqueued_ns) - ns(b.t_enqueued_ns)));
    if (group.length !== options.burst) continue; // a failed request breaks its burst's chain: counted in failures, not measured
    const starts = group.map((entry) => ns(entry.t_service_start_ns));
    for (const entry of group) serviceErrors.push(Number(ns(entry.t_service_end_ns) - ns(entry.t_due_end_ns)) / 1e6);
    for (let k = 2; k < options.burst; k += 1) {
      const idealStart = starts[k % 2] + BigInt(Math.floor(k / 2)) * BigInt(Math.round(options.serviceMs * 1e6));
      const error = group[k].queue_wait_ms! - Number(idealStart - ns(group[k].t_enqueued_ns)) / 1e6;
      errors.push(error);
      const depth = Math.floor(k / 2);
      byDepth.set(depth, [...(byDepth.get(depth) ?? []), error]);
    }
  }
  return {
    placement,
    queueError: [...byDepth.entries()].map(([depth, values]) => figure(`queue wait − predicted, ${depth} service${depth > 1 ? 's' : ''} behind`, values)),
    queueAbsError: figure('|queue wait − predicted|', errors.map(Math.abs)),
    serviceError: figure('reply end − due end (lateness)', serviceErrors),
    failures,
  };
}

/** The service as its own process (startModelServiceProcess), so the clients' work cannot delay its timers; optionally at raised priority. */
async function separateProcess(dir: string, baseMs: number, perTokenMs: number, options: QueueOptions, priority?: number): Promise<QueuePrecision> {
  const service = await startModelServiceProcess({ script: SCRIPT, socketDir: join(dir, `proc${priority ?? ''}`), slots: 2, baseMs, perTokenMs, priority });
  let clientFailures = 0;
  try {
    clientFailures = await fireBursts(service.socketPath, options);
  } finally {
    await service.close();
  }
  return queuePrecision(priority === undefined ? 'separate process' : 'separate process, priority −10', readJournal(service.journalPath), options, clientFailures);
}

export async function measureModelBench(options: { rounds?: number; burst?: number; baseMs?: number; perTokenMs?: number; overheadN?: number } = {}): Promise<ModelBenchResult> {
  const baseMs = options.baseMs ?? 40;
  const perTokenMs = options.perTokenMs ?? 1;
  const overheadN = options.overheadN ?? 200;
  const queue: QueueOptions = { rounds: options.rounds ?? 30, burst: options.burst ?? 6, serviceMs: baseMs + perTokenMs * 10 };
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-model-bench-'));
  const loadBefore = loadAverage();
  try {
    const queued = await startModelService({ script: SCRIPT, socketDir: join(dir, 'queue'), slots: 2, baseMs, perTokenMs });
    let clientFailures = 0;
    try {
      clientFailures = await fireBursts(queued.socketPath, queue);
    } finally {
      await queued.close();
    }
    const precision = [queuePrecision('in-process', readJournal(queued.journalPath), queue, clientFailures), await separateProcess(dir, baseMs, perTokenMs, queue)];
    // raising priority needs root; without it that row is left out, not faked
    if (process.getuid?.() === 0) precision.push(await separateProcess(dir, baseMs, perTokenMs, queue, -10));
    let failures = precision.reduce((sum, p) => sum + p.failures, 0);
    const free = await startModelService({ script: SCRIPT, socketDir: join(dir, 'free'), slots: 4 });
    const overhead: Figure[] = [];
    try {
      for (const [name, [path, body]] of Object.entries(BODIES)) {
        const times: number[] = [];
        for (let index = 0; index < overheadN + 20; index += 1) {
          const started = process.hrtime.bigint();
          await post(free.socketPath, path, body(`o${index}`)).catch(() => void (failures += 1));
          if (index >= 20) times.push(Number(process.hrtime.bigint() - started) / 1e6); // first 20: warm-up (JIT), discarded
        }
        overhead.push(figure(`round trip ${name}, 10 tokens, 0 ms`, times));
      }
    } finally {
      await free.close();
    }
    return { serviceMs: queue.serviceMs, precision, overhead, failures, loadBefore, loadAfter: loadAverage() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatModelBench(r: ModelBenchResult): string {
  const lines = [`model service bench: slots 2, bursts of 6 ×30, configured service ${r.serviceMs} ms (base + 10 tokens), failed requests ${r.failures}; load average before ${r.loadBefore}, after ${r.loadAfter}`];
  for (const p of r.precision) {
    const verdict = p.queueAbsError.p95 <= MODEL_BENCH_GOALS.queueWaitErrorMs ? `P95 within goal ≤ ${MODEL_BENCH_GOALS.queueWaitErrorMs} ms` : `P95 ABOVE goal ≤ ${MODEL_BENCH_GOALS.queueWaitErrorMs} ms`;
    lines.push(` service ${p.placement} (clients in the bench process):`, ...p.queueError.map(formatFigure), `${formatFigure(p.queueAbsError)}  (${verdict})`, formatFigure(p.serviceError));
  }
  lines.push(' per-request cost, service in-process:', ...r.overhead.map(formatFigure));
  return lines.join('\n');
}

/** `npm run bench -- model`: measure and print. */
export async function runModelBench(): Promise<void> {
  console.log(formatModelBench(await measureModelBench()));
}

if (import.meta.url === `file://${process.argv[1]}`) await runModelBench();
