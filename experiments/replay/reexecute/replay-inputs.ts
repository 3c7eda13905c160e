/**
 * What the replayer needs per trajectory, built once per run outside timing: the prefix parsed from
 * the native file with sandbench's own parser and cut after the ground truth's step, the recorded
 * calls (command, observation, exit code where recorded, fresh flag from the generator's ground
 * truth) and the read-only mount the in-sandbox driver runs from (`replay-driver.py` plus one calls
 * file per trajectory). One mount per run with a content key over all of it, so VM backends build
 * one read-only disk per run rather than per trial.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_MOUNT_ROOT, type SandboxMount } from '../../../harness/contracts/executor.ts';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { MODEL_ENDPOINT_FILES } from '../../../services/model/index.ts';
import { cutAfterStep } from '../cut-prefix.ts';
import { parseTrajectory } from '../prepare-prefix.ts';
import type { FixtureEntry } from '../replay-fixtures.ts';
import type { RecordedCall } from './fidelity.ts';

export const DRIVER_SOURCE = join(PROJECT_ROOT, 'experiments', 'replay', 'reexecute', 'replay-driver.py');
/** Mode continue also runs these from the mount: its entry script, the built-in agent, the model endpoint (forwarder). */
const CONTINUE_SOURCES = {
  'continue.sh': join(PROJECT_ROOT, 'experiments', 'replay', 'reexecute', 'continue.sh'),
  'agent.py': join(PROJECT_ROOT, 'experiments', 'rollout', 'agent', 'agent.py'),
  ...MODEL_ENDPOINT_FILES,
};
export const REPLAY_MOUNT_TARGET = `${SANDBOX_MOUNT_ROOT}/replay`;

export interface PrefixInput {
  entry: FixtureEntry;
  calls: RecordedCall[];
  /** Calls the replayer cannot re-execute (non-shell tools): a categorized failure, not a guess. */
  unsupported: string[];
  /** Path of this trajectory's calls file inside the sandbox. */
  callsTarget: string;
}

export interface ReplayInputs {
  mount: SandboxMount;
  prefixes: Map<string, PrefixInput>;
}

export function prefixInput(entry: FixtureEntry): Omit<PrefixInput, 'callsTarget'> {
  const history = parseTrajectory(entry.agent, readFileSync(entry.path));
  const prefix = cutAfterStep(history, entry.task.prefixTurns);
  const results = new Map(prefix.keptObservations.map((m) => [m.call_id, m]));
  const calls: RecordedCall[] = [];
  const unsupported: string[] = [];
  prefix.keptCalls.forEach((call, k) => {
    if (call.kind !== 'shell') {
      unsupported.push(`${call.native_name} (${call.id})`);
      return;
    }
    const result = results.get(call.id);
    calls.push({ id: call.id, command: call.command, observation: result?.output ?? '', exitCode: result?.exit_code ?? null, fresh: entry.task.turns[k]?.fresh === true });
  });
  return { entry, calls, unsupported };
}

export function buildReplayInputs(scratchDir: string, entries: Iterable<FixtureEntry>, withContinuation = false): ReplayInputs {
  const root = join(scratchDir, 'reexecute');
  mkdirSync(join(root, 'calls'), { recursive: true });
  copyFileSync(DRIVER_SOURCE, join(root, 'replay-driver.py'));
  const key = createHash('sha256').update(readFileSync(DRIVER_SOURCE));
  if (withContinuation) {
    for (const [name, source] of Object.entries(CONTINUE_SOURCES)) {
      copyFileSync(source, join(root, name));
      key.update(`${name}\0`).update(readFileSync(source));
    }
  }
  const prefixes = new Map<string, PrefixInput>();
  for (const entry of entries) {
    const input = prefixInput(entry);
    const name = `${entry.agent}-task-${entry.index}.json`;
    const text = `${JSON.stringify({ prompt: entry.task.userText, calls: input.calls.map((c) => ({ id: c.id, command: c.command })) })}\n`;
    writeFileSync(join(root, 'calls', name), text);
    key.update(`${name}\0${text}`);
    prefixes.set(`${entry.agent}/${entry.index}`, { ...input, callsTarget: `${REPLAY_MOUNT_TARGET}/calls/${name}` });
  }
  return { mount: { source: root, target: REPLAY_MOUNT_TARGET, contentKey: `replay-${key.digest('hex').slice(0, 16)}` }, prefixes };
}
