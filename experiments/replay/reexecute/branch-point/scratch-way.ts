/**
 * Way (c) to the branch point (issue 19): run the prefix from scratch with the model. The built-in
 * agent starts from the prompt alone (continue.sh with an empty prefix: the replay driver replays
 * nothing and writes the prompt) against the scripted model service, whose script for the
 * trajectory answers request k with prefix call k and request n+1 with a final text: the agent runs
 * every prefix call live, and the branch point is the (n+1)-th model request, when the prefix is
 * done and the next model turn is due. Timed on the host clock: staging, then launch → that
 * request's arrival at the service (`branch_point_ms`); the workspace must hold exactly the prefix's
 * effects, like a replay's. The script's service time is 0 ms: a real model's latency per turn
 * would add n × its latency (the report says so).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_MOUNT_ROOT, type OutputLine, type RunningTrial, type SandboxMount } from '../../../../harness/contracts/executor.ts';
import { parseModelScript, readModelJournal, type ModelScript } from '../../../../services/model/index.ts';
import { CONTINUE_META_DIR } from '../continuation.ts';
import type { PrefixInput } from '../replay-inputs.ts';
import type { ContinuationJudge } from '../replay-only-trial.ts';

export const SCRATCH_MOUNT_TARGET = `${SANDBOX_MOUNT_ROOT}/branch-point`;
export const scratchTaskId = (input: PrefixInput) => `bp-scratch-${input.entry.agent}-${input.entry.index}`;
const BRANCH_POINT_TEXT = 'branch point reached: the prefix ran from scratch';

/** One script task per trajectory: the prefix's calls, then the final text at the branch point. */
export function scratchScript(inputs: Iterable<PrefixInput>): ModelScript {
  const tasks = [...inputs].map((input) => ({ id: scratchTaskId(input), turns: [...input.calls.map((c) => ({ shell: c.command })), { text: BRANCH_POINT_TEXT }] }));
  return parseModelScript({ schema: 'sandbench-model-script/1', id: 'replay-branch-point', description: 'run a prefix from scratch (issue 19 branch point)', tasks }, 'replay-branch-point (built in)');
}

/** Read-only mount of the empty-prefix calls files (prompt only) continue.sh takes. */
export function buildScratchMount(dir: string, inputs: Iterable<PrefixInput>): { mount: SandboxMount; callsTarget: Map<string, string> } {
  mkdirSync(join(dir, 'calls'), { recursive: true });
  const key = createHash('sha256');
  const callsTarget = new Map<string, string>();
  for (const input of inputs) {
    const name = `${input.entry.agent}-task-${input.entry.index}.json`;
    const text = `${JSON.stringify({ prompt: input.entry.task.userText, calls: [] })}\n`;
    writeFileSync(join(dir, 'calls', name), text);
    key.update(`${name}\0${text}`);
    callsTarget.set(`${input.entry.agent}/${input.entry.index}`, `${SCRATCH_MOUNT_TARGET}/calls/${name}`);
  }
  return { mount: { source: dir, target: SCRATCH_MOUNT_TARGET, contentKey: `bp-scratch-${key.digest('hex').slice(0, 16)}` }, callsTarget };
}

/**
 * The from-scratch run as runReplayOnly's continuation: the workspace must hold exactly the prefix's
 * effects (the agent's meta directory aside), the agent sent exactly n+1 scripted requests (turns
 * 0..n), and the branch point is request n+1's arrival.
 */
export function scratchJudge(input: PrefixInput, journalPath: string, attempt: string): ContinuationJudge {
  const effects = input.entry.task.effects!;
  const n = input.calls.length;
  return {
    expected: { files: effects.files, opaqueDirs: [...effects.opaqueDirs, CONTINUE_META_DIR] },
    async judge(_lines: readonly OutputLine[], running: RunningTrial) {
      const mine = readModelJournal(journalPath).entries.filter((e) => e.attempt === attempt && e.status === 'ok' && e.reply !== 'side');
      const turns = mine.map((e) => e.turn);
      const scripted = turns.join(',') === Array.from({ length: n + 1 }, (_, k) => k).join(',');
      const branch = mine.find((e) => e.turn === n);
      const metrics: Record<string, number> = {};
      if (branch) metrics.launch_to_branch_point_ms = Number(BigInt(branch.t_arrival_ns) - running.tSpawnNs) / 1e6;
      const serviceMs = mine.reduce((sum, e) => sum + (e.service_ms ?? 0), 0);
      metrics.model_service_ms = serviceMs;
      return {
        validity: { scratch_scripted_requests: scripted ? 'pass' : 'fail', scratch_reached_branch_point: branch ? 'pass' : 'fail' },
        metrics,
        facts: { scratch_turns_answered: turns, scratch_requests: mine.length, scratch_agent: 'sandbench-builtin-agent' },
        notes: scripted ? [] : [`from-scratch traffic: turns ${JSON.stringify(turns)}, expected 0..${n}`],
      };
    },
  };
}
