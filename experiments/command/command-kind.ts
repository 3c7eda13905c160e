/**
 * The generic `command` kind: "hyperfine for sandboxes". The user gives task.argv (and optionally a
 * ready marker line); sandbench times it on every backend with the same plan, controls and statistics.
 * A trial is valid when the command exits 0 (and prints the ready marker exactly once, when one is given).
 * `command.prime_runs` (command-spec.ts) runs it untimed right before each timed run, as hyperfine's --warmup.
 */
import { cpSync, existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { UserError } from '../../harness/errors.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { createTrialExperiment, type TaskKind } from '../trial-experiment.ts';
import { commandOptions, commandSection, primeRunIssues } from './command-spec.ts';

export function resolveWorkspaceFixture(path: string): string {
  const absolute = isAbsolute(path) ? path : join(PROJECT_ROOT, path);
  if (!existsSync(absolute)) throw new UserError(`task.workspace: ${path} does not exist (give a directory, relative to the spec file or absolute)`);
  return absolute;
}

export const commandKind: TaskKind = {
  kind: 'command',
  spec: {
    section: commandSection,
    starter: 'experiments/command/starter.yaml',
    refine: (spec, backends) => [...(spec.task.argv ? [] : [{ path: ['task', 'argv'], message: 'the command kind needs task.argv (the command to time)' }]), ...primeRunIssues(spec, backends)],
  },
  analysis: { scenario: 'command', topic: 'command', primaryMetrics: ['completion_ms'], trialsPerBlock: 1 },
  async prepareBaseline(spec, dir) {
    if (spec.task.workspace) cpSync(resolveWorkspaceFixture(spec.task.workspace), dir, { recursive: true });
  },
  task: (spec) => {
    const primeRuns = commandOptions(spec).prime_runs;
    return { argv: spec.task.argv ?? [], env: spec.task.env, stdin: 'none', ...(primeRuns > 0 ? { primeRuns } : {}) };
  },
  readyMarker: (spec) => spec.task.ready_marker ?? null,
  requiresResult: () => false,
  async check() {
    return { validity: {} };
  },
};

export const commandExperiment = createTrialExperiment(commandKind);
