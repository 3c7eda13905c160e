/**
 * Prepared-shell ready: the smallest useful task — a shell that says it is ready and reports a
 * result. Ready = the READY line read on the host; completion = exit (pVisor's marker protocol).
 */
import type { TaskCommand } from '../../harness/contracts/executor.ts';
import { createTrialExperiment, READY_MARKER, RESULT_MARKER, type TaskKind } from '../trial-experiment.ts';

const SHELL_READY_SCRIPT = `printf '%s\\n' '${READY_MARKER}'; printf '%s\\n' '${RESULT_MARKER} {"mode":"ready","correctness":"passed"}'`;

export const shellReadyKind: TaskKind = {
  kind: 'shell-ready',
  spec: { starter: 'experiments/shell-ready/starter.yaml' },
  analysis: {
    scenario: 'environment_creation',
    topic: 'prepared_shell_ready',
    // result_ms equals ready_ms by construction (both markers are printed at once): ready leads.
    primaryMetrics: ['ready_ms'],
    trialsPerBlock: 1,
  },
  async prepareBaseline() {
    // An empty workspace: the task only proves the shell is up.
  },
  task: (spec): TaskCommand => ({ argv: ['/bin/sh', '-c', SHELL_READY_SCRIPT], env: spec.task.env, stdin: 'none' }),
  readyMarker: () => READY_MARKER,
  requiresResult: () => true,
  async check(observation) {
    const passed = observation.result?.correctness === 'passed' && observation.result?.mode === 'ready';
    return { validity: { result_correct: passed ? 'pass' : 'fail' } };
  },
};

export const shellReadyExperiment = createTrialExperiment(shellReadyKind);
