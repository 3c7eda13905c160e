/**
 * Mode `continue` (issue 19): after the replay, the built-in agent (experiments/rollout/agent/
 * agent.py --resume-from) continues from the prefix against the scripted model service. The script
 * answers request n with turn n (n = tool results so far): the seven prefix turns are the
 * historical calls (never asked for, the replay already ran them), turn 7 is the trajectory's future
 * action (`python3 src/main.py > marker-<i>.txt`, whose output depends on the replayed edit of
 * src/main.py) and turn 8 the final text. Judged per trial: the continuation sent exactly the two
 * scripted requests, its marker holds what the REPLAYED state produces, and the observation it sent
 * for the fresh call is the replayed one, not the historical text (so "saw replayed" is measured).
 */
import { join } from 'node:path';
import type { CandidateFiles, OutputLine, RunningTrial } from '../../../harness/contracts/executor.ts';
import { parseModelScript, readModelJournal, type ModelScript } from '../../../services/model/index.ts';
import { summarizeAttempts } from '../../../services/model/journal-summary.ts';
import type { ExpectedEffects } from '../fixture-task.ts';
import { normalizeObservation } from './fidelity.ts';
import type { PrefixInput } from './replay-inputs.ts';
import type { ContinuationJudge, DriverReport } from './replay-only-trial.ts';

export const CONTINUE_META_DIR = '.sandbench-replay';
export const continueTaskId = (input: PrefixInput) => `effects-${input.entry.agent}-${input.entry.index}`;

export function continuationScript(inputs: Iterable<PrefixInput>): ModelScript {
  const tasks = [...inputs].map((input) => {
    const future = input.entry.task.turns[input.entry.task.prefixTurns]!;
    // builtin-fix: the rest of the seeded path (right or wrong) of the rollout task, then its final text
    const rest = input.entry.task.fix?.continuation ?? [{ shell: future.command }, { text: 'done: the marker holds what main.py prints' }];
    return { id: continueTaskId(input), turns: [...input.calls.map((c) => ({ shell: c.command })), ...rest] };
  });
  return parseModelScript({ schema: 'sandbench-model-script/1', id: 'replay-continue', description: 'continue a replayed effects prefix (issue 19)', tasks }, 'replay-continue (built in)');
}

/** The agent's tool message content is `<returncode>N</returncode>\n<output>`; the output part. */
const outputOf = (content: unknown) => (typeof content === 'string' ? content.replace(/^<returncode>-?\d+<\/returncode>\n/, '') : null);

export function continuationJudge(input: PrefixInput, journalPath: string, attempt: string): ContinuationJudge {
  const { entry } = input;
  const effects = entry.task.effects!;
  // builtin-fix: what the continuation leaves is judged by the task's evaluator (continue-reward.ts), not a ground truth
  const expected: ExpectedEffects | null = entry.task.fix
    ? null
    : {
        files: { ...effects.files, [`marker-${entry.index}.txt`]: `${effects.files['src/main.py']!.replace(/^print\("(.*)"\)\n$/, '$1')}\n` },
        opaqueDirs: [...effects.opaqueDirs, CONTINUE_META_DIR],
      };
  const continuationTurns = entry.task.fix?.continuation.length ?? 2;
  return {
    expected,
    async judge(lines: readonly OutputLine[], running: RunningTrial, candidates: CandidateFiles, report: DriverReport) {
      const start = lines.find((l) => l.stream === 'stdout' && l.text.trim() === 'CONTINUE_START');
      const traffic = summarizeAttempts(readModelJournal(journalPath).entries).find((t) => t.attempt === attempt) ?? null;
      const trajectory = await candidates.read(join(CONTINUE_META_DIR, 'trajectory.json'));
      const messages = trajectory ? ((JSON.parse(trajectory.toString('utf8')) as { messages?: { role: string; content?: unknown; extra?: { resumed?: boolean } }[] }).messages ?? []) : [];
      const sentTools = messages.filter((m) => m.role === 'tool' && m.extra?.resumed === true).map((m) => outputOf(m.content));
      const freshIndex = input.calls.findIndex((c) => c.fresh);
      const replayedFresh = report.calls[freshIndex]?.output ?? null;
      const sent = freshIndex >= 0 ? sentTools[freshIndex] ?? null : null;
      const saw =
        sent === null || replayedFresh === null ? 'unknown'
        : normalizeObservation(sent) === normalizeObservation(replayedFresh) && normalizeObservation(sent) !== normalizeObservation(input.calls[freshIndex]!.observation) ? 'replayed'
        : normalizeObservation(sent) === normalizeObservation(input.calls[freshIndex]!.observation) ? 'historical' : 'unknown';
      const turns = traffic?.turnsAnswered ?? [];
      const scripted = traffic !== null && traffic.generations === continuationTurns && turns.join(',') === Array.from({ length: continuationTurns }, (_, k) => input.calls.length + k).join(',');
      const metrics: Record<string, number> = {};
      if (traffic?.firstGenerationNs != null) metrics.first_continuation_request_ms = Number(traffic.firstGenerationNs - running.tSpawnNs) / 1e6;
      if (traffic?.firstGenerationNs != null && start) metrics.continuation_first_request_ms = Number(traffic.firstGenerationNs - start.tNs) / 1e6;
      const exit = await running.exit;
      if (start) metrics.continuation_ms = Number(exit.tExitNs - start.tNs) / 1e6;
      return {
        validity: { continuation_start_once: lines.filter((l) => l.stream === 'stdout' && l.text.trim() === 'CONTINUE_START').length === 1 ? 'pass' : 'fail', continuation_scripted_requests: scripted ? 'pass' : 'fail', continuation_saw_replayed: saw === 'replayed' ? 'pass' : 'fail' },
        metrics,
        facts: { continuation_agent: 'sandbench-builtin-agent', continuation_saw: saw, continuation_turns_answered: turns, continuation_requests: traffic?.requests ?? 0, ...(entry.task.fix ? {} : { continuation_reward: 'no rollout evaluator for the effects task: the marker is checked against the ground truth instead' }) },
        notes: scripted ? [] : [`continuation traffic: ${traffic ? `${traffic.generations} generation(s), turns ${JSON.stringify(turns)}` : 'no request reached the model service'}`],
      };
    },
  };
}
