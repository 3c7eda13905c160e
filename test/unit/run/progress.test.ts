/** The non-TTY progress line names an infrastructure failure's reason (a runtime's own message) once. */
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../../harness/run/progress.ts';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';

const record = (trialId: string, failure: TrialRecord['failure_category'], notes: string[]): TrialRecord => ({
  run_id: 'r', schema_version: 1, experiment: 'command', arm: { backend: 'podman', variant: null }, block: 0, position: 0, trial_id: trialId, warmup: false, seed: 1,
  outcome: failure ? 'failed' : 'ok', failure_category: failure, exit_code: failure ? 126 : 0, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null,
  metrics: {}, validity: {}, facts: {}, notes,
});

describe('progress lines', () => {
  it('print an infrastructure failure\'s first note the first time it is seen, never a task failure\'s', () => {
    const lines: string[] = [];
    const stream = { isTTY: false, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
    const progress = createProgress(4, 0, stream);
    const crun = 'podman run exited 126, the container never started: Error: OCI runtime error: crun: cgroups in hybrid mode not supported';
    progress.trialDone(record('t1', 'setup_failed', [crun]));
    progress.trialDone(record('t2', 'setup_failed', [crun]));
    progress.trialDone(record('t3', 'task_failed', ['the agent exited 1']));
    progress.trialDone(record('t4', null, []));
    expect(lines[0]).toContain(`failed(setup_failed)`);
    expect(lines[0]).toContain(` — ${crun}`);
    expect(lines[1]).not.toContain('crun');
    expect(lines[2]).not.toContain('the agent exited 1');
  });
});
