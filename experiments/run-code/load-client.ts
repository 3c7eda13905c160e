/**
 * The run-code load generator: C clients in a closed loop, each posting the next request the way
 * verl's call_sandbox_api does (its body, its HTTP timeout) and classifying the answer with verl's
 * rules. It runs in a process of its own (load-client-process.ts), never beside the server: in one
 * Node process, 64 clients and the server shared an event loop, and under load that loop's delay was
 * part of every round trip (docs/run-code.md, the first measurement). The process reports its own CPU
 * time over the loop, so a reader can see whether the client could have been the limit.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { REQUEST_ID_HEADER } from '../../services/run-code/index.ts';
import { requestBody, verlVerdict, type StreamEntry, type VerlVerdict } from './request-stream.ts';

// From the project root, not import.meta.url: the bundled dist/ CLI lives elsewhere.
const ENTRY = join(PROJECT_ROOT, 'experiments', 'run-code', 'load-client-process.ts');
export const RESULT_LINE = 'RUN_CODE_CLIENT_RESULT';
export const DONE_LINE = 'RUN_CODE_CLIENT_DONE';

export interface LoadJob {
  url: string;
  concurrency: number;
  /** In request order: each client takes the next one. */
  requests: Array<{ key: string; entry: StreamEntry }>;
}

export interface ClientObservation {
  key: string;
  verdict: VerlVerdict;
  roundTripMs: number;
  http: number;
  requestId: string | null;
  clientError: string | null;
  /** CLOCK_MONOTONIC (process.hrtime) at send; the same clock in every process of the host. */
  tSentNs: string;
}

/** What the client process spent on the loop: CPU over wall is its load, in cores. */
export interface ClientUsage {
  pid: number;
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  maxRssKib: number;
}

/** verl's HTTP timeout for one call: compile + run + 10 s (utils.py:114–116); verl passes the case timeout as both. */
const verlHttpTimeoutMs = (entry: StreamEntry) => (2 * entry.run_timeout + 10) * 1000;

async function post(url: string, entry: StreamEntry): Promise<{ http: number; body: string; requestId: string | null; error: string | null }> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: requestBody(entry), signal: AbortSignal.timeout(verlHttpTimeoutMs(entry)) });
    return { http: response.status, body: await response.text(), requestId: response.headers.get(REQUEST_ID_HEADER), error: null };
  } catch (error) {
    return { http: 0, body: '', requestId: null, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The closed loop itself (run inside the client process): `report` is called as each request ends. */
export async function runClosedLoop(job: LoadJob, report: (observation: ClientObservation) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < job.requests.length) {
      const { key, entry } = job.requests[next++]!;
      const sent = process.hrtime.bigint();
      const answer = await post(job.url, entry);
      const roundTripMs = Number(process.hrtime.bigint() - sent) / 1e6;
      const verdict: VerlVerdict = answer.error ? 'api_error' : verlVerdict(answer.http, answer.body, entry.expected_stdout);
      report({ key, verdict, roundTripMs, http: answer.http, requestId: answer.requestId, clientError: answer.error, tSentNs: sent.toString() });
    }
  };
  await Promise.all(Array.from({ length: Math.min(job.concurrency, job.requests.length) }, worker));
}

export interface LoadRun {
  observations: Map<string, ClientObservation>;
  usage: ClientUsage;
}

export interface RunningLoad {
  done: Promise<LoadRun>;
  /** Kill the client process (an interrupted run). */
  kill(): void;
}

/** Start the load in a child process; `jobFile` is a scratch path the job is written to (removed once the child has read it). */
export function startLoadClient(job: LoadJob, jobFile: string): RunningLoad {
  writeFileSync(jobFile, JSON.stringify(job));
  // tsx resolved from this package, not from the cwd (services/model/process.ts: runs outside the checkout).
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), ENTRY, jobFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const observations = new Map<string, ClientObservation>();
  let usage: ClientUsage | null = null;
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith(`${RESULT_LINE} `)) {
      const observation = JSON.parse(line.slice(RESULT_LINE.length + 1)) as ClientObservation;
      observations.set(observation.key, observation);
    } else if (line.startsWith(`${DONE_LINE} `)) usage = JSON.parse(line.slice(DONE_LINE.length + 1)) as ClientUsage;
  });
  const done = new Promise<LoadRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      rmSync(jobFile, { force: true });
      if (code === 0 && usage) resolve({ observations, usage });
      else reject(new Error(`run-code load client ended with ${signal ?? `exit ${code}`} after ${observations.size} of ${job.requests.length} requests: ${stderr.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
  return { done, kill: () => child.kill('SIGKILL') };
}
