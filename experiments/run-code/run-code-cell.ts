/**
 * One cell run: a /run_code server on the arm's backend (slots = the cell's concurrency unless the
 * spec says otherwise) and C clients in a closed loop in a separate process (load-client.ts), each
 * posting the next request of the cell the way verl's call_sandbox_api does and classifying the
 * answer with verl's rules. Each request becomes one trial record: the client's round trip, the
 * server's phases from its journal line, verl's verdict; the cell's throughput and the CPU the client
 * and server processes spent are copied onto every record of the cell (`cell` metrics).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import { startRunCodeServer, type RunCodeJournalEntry } from '../../services/run-code/index.ts';
import type { LanguageSupport, VerlLanguage } from '../../services/run-code/languages.ts';
import { baseRecord } from '../trial-experiment.ts';
import { startLoadClient, type LoadRun } from './load-client.ts';
import type { StreamEntry } from './request-stream.ts';
import { cellRunKey, requestParams } from './run-code-plan.ts';
import { requestRecord, type CellFigures } from './run-code-record.ts';

export interface CellInput {
  ctx: ExperimentContext;
  /** The cell's planned requests, in request order. */
  planned: PlannedTrial[];
  stream: readonly StreamEntry[];
  languages: ReadonlyMap<VerlLanguage, LanguageSupport>;
  slots: number | undefined;
  journalPath: string;
}

export async function runCell(input: CellInput): Promise<Map<string, TrialRecord>> {
  const { ctx, planned } = input;
  const first = planned[0]!;
  const concurrency = requestParams(first).concurrency;
  const executor = ctx.executorFor(first.arm);
  const entries = new Map<string, RunCodeJournalEntry>();
  const scratchDir = join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'run-code', first.trial_id);
  const scratch = ctx.run.cleanup.register('tempdir', scratchDir, () => rmSync(scratchDir, { recursive: true, force: true }));
  mkdirSync(scratchDir, { recursive: true });
  const server = await startRunCodeServer({
    executor, run: ctx.run, languages: input.languages, slots: input.slots ?? concurrency, port: 0,
    scratchDir, journalPath: input.journalPath,
    onJournal: (entry) => entries.set(entry.request_id, entry),
  });
  // On an interruption the run's cleanup closes the server (killing its sandboxes); the clients then get 503s and the loop ends at once.
  const serverHandle = ctx.run.cleanup.register('server', `run-code server ${first.trial_id}`, () => server.close());
  const loadBefore = loadavg()[0]!;
  const serverCpuStart = process.cpuUsage();
  const load = startLoadClient({ url: server.url, concurrency, requests: planned.map((request) => ({ key: request.trial_id, entry: input.stream[requestParams(request).entry]! })) }, join(scratchDir, 'load-job.json'));
  const clientHandle = ctx.run.cleanup.register('process', `run-code load client ${first.trial_id}`, () => load.kill());
  let run: LoadRun;
  let serverCpu: NodeJS.CpuUsage;
  try {
    run = await load.done;
    serverCpu = process.cpuUsage(serverCpuStart);
  } finally {
    ctx.run.cleanup.forget(clientHandle);
    // Requests whose client gave up (verl's HTTP timeout) still hold sandboxes: they finish before the next cell starts.
    ctx.run.cleanup.forget(serverHandle);
    await server.close({ drain: true });
    await ctx.run.cleanup.release(scratch);
  }
  const { observations, usage } = run;
  const wallMs = usage.wallMs;
  const okVerdicts = planned.filter((request) => {
    const observation = observations.get(request.trial_id);
    return observation && observation.verdict === input.stream[requestParams(request).entry]!.expect;
  }).length;
  const cell: CellFigures = {
    run: cellRunKey(first), concurrency, wallMs, requestsPerS: planned.length / (wallMs / 1000), okPerS: okVerdicts / (wallMs / 1000), loadAvg1mBefore: loadBefore, loadAvg1mAfter: loadavg()[0]!,
    clientPid: usage.pid, clientCpuMs: usage.cpuUserMs + usage.cpuSystemMs, clientMaxRssKib: usage.maxRssKib,
    // This process: the server, the backend's executor plumbing and the launcher's client (not the sandboxes, not the client process).
    serverProcessCpuMs: (serverCpu.user + serverCpu.system) / 1000,
  };
  return new Map(planned.map((request) => {
    const client = observations.get(request.trial_id)!;
    const observation = { ...client, entry: input.stream[requestParams(request).entry]!, tSentNs: BigInt(client.tSentNs) };
    const journal = client.requestId ? entries.get(client.requestId) ?? null : null;
    return [request.trial_id, requestRecord(baseRecord(ctx, request), observation, journal, cell)];
  }));
}
