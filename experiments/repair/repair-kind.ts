/**
 * Repair completion: the fixed tool plan (inspect, search, `git apply`, tests, `git diff --stat`)
 * as one payload; completion = exit. Valid only if the tests passed inside the sandbox and the fix
 * landed where the backend says writes go: the candidate files for staging backends (with the host
 * baseline still buggy), the host copy for Podman/Docker and host.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TaskCommand } from '../../harness/contracts/executor.ts';
import { createTrialExperiment, READY_MARKER, type TaskKind } from '../trial-experiment.ts';
import { FIXED_FILE, fixState, TOOL_PLAN, writeRepairBaseline } from './repair-fixture.ts';

let baselineCommit: string | null = null;

function readOrNull(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

export const repairKind: TaskKind = {
  kind: 'repair',
  analysis: { scenario: 'repair', topic: 'repair_to_exit', primaryMetrics: ['completion_ms'], trialsPerBlock: 1 },
  async prepareBaseline(spec, dir) {
    baselineCommit = await writeRepairBaseline(dir, spec.image.source_date_epoch);
  },
  task: (spec): TaskCommand => ({
    argv: ['/bin/sh', TOOL_PLAN],
    env: { PYTHONDONTWRITEBYTECODE: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_PAGER: 'cat', ...spec.task.env },
    stdin: 'none',
  }),
  readyMarker: () => READY_MARKER,
  requiresResult: () => true,
  async check(observation) {
    const { result, binding, candidates } = observation;
    const correct = result?.mode === 'tools' && result?.correctness === 'passed';
    const validity: Record<string, 'pass' | 'fail'> = { correctness_passed: correct ? 'pass' : 'fail' };
    const hostState = fixState(readOrNull(join(binding.hostPath, FIXED_FILE)));
    const facts: Record<string, unknown> = { baseline_commit: baselineCommit, host_fixed_file: hostState };
    if (binding.claimsStaging) {
      const candidateState = fixState(candidates.changed.includes(FIXED_FILE) ? await candidates.read(FIXED_FILE) : null);
      facts.candidate_fixed_file = candidateState;
      validity.fix_in_candidate_files = candidateState === 'fixed' ? 'pass' : 'fail';
      validity.host_baseline_still_buggy = hostState === 'buggy' ? 'pass' : 'fail';
    } else {
      validity.fix_in_host_copy = hostState === 'fixed' ? 'pass' : 'fail';
    }
    const extra = candidates.changed.filter((path) => path !== FIXED_FILE);
    if (extra.length > 0) facts.unexpected_candidate_files = extra;
    const hostLeak = binding.claimsStaging && validity.host_baseline_still_buggy === 'fail';
    return { validity, facts, failureCategory: hostLeak ? 'isolation_refused' : 'task_failed' };
  },
};

export const repairExperiment = createTrialExperiment(repairKind);
