/**
 * One cell run: a /run_code server on the arm's backend (slots = the cell's concurrency unless the
 * spec says otherwise) and C clients in a closed loop, each posting the next request of the cell the
 * way verl's call_sandbox_api does and classifying the answer with verl's rules. Each request becomes
 * one trial record: the client's round trip, the server's phases from its journal line, verl's
 * verdict; the cell's throughput is copied onto every record of the cell (a `cell` metric).
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import { REQUEST_ID_HEADER, startRunCodeServer, type RunCodeJournalEntry } from '../../services/run-code/index.ts';
import type { LanguageSupport, VerlLanguage } from '../../services/run-code/languages.ts';
import { baseRecord } from '../trial-experiment.ts';
import { requestBody, verlVerdict, type StreamEntry, type VerlVerdict } from './request-stream.ts';
import { cellRunKey, requestParams } from './run-code-plan.ts';
import { requestRecord, type RequestObservation } from './run-code-record.ts';

export interface CellInput {
  ctx: ExperimentContext;
  /** The cell's planned requests, in request order. */
  planned: PlannedTrial[];
  stream: readonly StreamEntry[];
  languages: ReadonlyMap<VerlLanguage, LanguageSupport>;
  slots: number | undefined;
  journalPath: string;
}

/** verl's HTTP timeout for one call: compile + run + 10 s (utils.py:116). */
const verlHttpTimeoutMs = (entry: StreamEntry) => (2 * entry.run_timeout + 10) * 1000;

async function post(url: string, entry: StreamEntry): Promise<{ http: number; body: string; requestId: string | null; error: string | null }> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: requestBody(entry), signal: AbortSignal.timeout(verlHttpTimeoutMs(entry)) });
    return { http: response.status, body: await response.text(), requestId: response.headers.get(REQUEST_ID_HEADER), error: null };
  } catch (error) {
    return { http: 0, body: '', requestId: null, error: error instanceof Error ? error.message : String(error) };
  }
}

export async function runCell(input: CellInput): Promise<Map<string, TrialRecord>> {
  const { ctx, planned } = input;
  const first = planned[0]!;
  const concurrency = requestParams(first).concurrency;
  const executor = ctx.executorFor(first.arm);
  const entries = new Map<string, RunCodeJournalEntry>();
  const scratchDir = join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'run-code', first.trial_id);
  const scratch = ctx.run.cleanup.register('tempdir', scratchDir, () => rmSync(scratchDir, { recursive: true, force: true }));
  const server = await startRunCodeServer({
    executor, run: ctx.run, languages: input.languages, slots: input.slots ?? concurrency, port: 0,
    scratchDir, journalPath: input.journalPath,
    onJournal: (entry) => entries.set(entry.request_id, entry),
  });
  // On an interruption the run's cleanup closes the server (killing its sandboxes); the clients then get 503s and the loop ends at once.
  const serverHandle = ctx.run.cleanup.register('server', `run-code server ${first.trial_id}`, () => server.close());
  const observations = new Map<string, RequestObservation>();
  const loadBefore = loadavg()[0]!;
  const cellStart = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < planned.length) {
      const request = planned[next++]!;
      const entry = input.stream[requestParams(request).entry]!;
      const sent = process.hrtime.bigint();
      const answer = await post(server.url, entry);
      const roundTripMs = Number(process.hrtime.bigint() - sent) / 1e6;
      const verdict: VerlVerdict = answer.error ? 'api_error' : verlVerdict(answer.http, answer.body, entry.expected_stdout);
      observations.set(request.trial_id, { entry, verdict, roundTripMs, http: answer.http, requestId: answer.requestId, clientError: answer.error, tSentNs: sent });
    }
  };
  let wallMs = 0;
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, planned.length) }, worker));
    wallMs = Number(process.hrtime.bigint() - cellStart) / 1e6;
  } finally {
    // Requests whose client gave up (verl's HTTP timeout) still hold sandboxes: they finish before the next cell starts.
    ctx.run.cleanup.forget(serverHandle);
    await server.close({ drain: true });
    await ctx.run.cleanup.release(scratch);
  }
  const okVerdicts = [...observations.values()].filter((o) => o.verdict === o.entry.expect).length;
  const cell = { run: cellRunKey(first), concurrency, wallMs, requestsPerS: planned.length / (wallMs / 1000), okPerS: okVerdicts / (wallMs / 1000), loadAvg1mBefore: loadBefore, loadAvg1mAfter: loadavg()[0]! };
  return new Map(planned.map((request) => {
    const observation = observations.get(request.trial_id)!;
    const journal = observation.requestId ? entries.get(observation.requestId) ?? null : null;
    return [request.trial_id, requestRecord(baseRecord(ctx, request), observation, journal, cell)];
  }));
}
