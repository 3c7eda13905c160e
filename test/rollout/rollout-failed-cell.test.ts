/**
 * A rollout cell that fails as a whole is reported by its planned coordinates and as "no data" with
 * its reason, never `C=undefined model undefined×undefinedms` or NaN. Real run on host (the built-in
 * tasks and agent, the real model service): the C = 2 cell's model service cannot start because a
 * file stands where its socket directory must be, so the run has one measured cell and one failed.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kindCatalog } from '../../cli/kinds.ts';
import { runWiring } from '../../cli/wiring.ts';
import { createRolloutExperiment, plannedCoordinates } from '../../experiments/rollout/rollout-kind.ts';
import { defaultLoadTasks } from '../../experiments/rollout/rollout-inputs.ts';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { terminalSummary } from '../../reports/render/terminal-summary.ts';
import { leftoversOf } from '../support/leftovers.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('a failed rollout cell in the report', () => {
  it('is labelled by its planned C and model capacity, its figures absent with the reason, no NaN', async () => {
    const dir = tempDir('sandbench-rollout-failed-cell-');
    const out = join(dir, 'bundle');
    const spec = join(dir, 'spec.yaml');
    writeFileSync(spec, `name: failed-cell
experiment: rollout
arms: [{ backend: host }]
warmups: 0
trials: 1
seed: 7
timeout: 60s
rollout: { tasks: builtin, attempts: 2, concurrency: [1, 2], model: [{ slots: 2, base_ms: 20 }], scoring_backend: host }
`);
    // Before any cell runs (tasks load in prepare): block the C = 2 cell's scratch dir, where its model service binds its socket.
    const blockC2Cell: typeof defaultLoadTasks = async (name, options) => {
      const runId = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8')).run_id as string;
      const trials = JSON.parse(readFileSync(join(out, 'plan.json'), 'utf8')).trials as PlannedTrial[];
      const cellRun = plannedCoordinates(trials.find((t) => t.params?.concurrency === 2)!).cellRun;
      mkdirSync(runScratchDir(stateDir(), runId), { recursive: true });
      writeFileSync(join(runScratchDir(stateDir(), runId), cellRun), 'a file where the cell\'s directory must be\n');
      return defaultLoadTasks(name, options);
    };
    const base = await runWiring();
    const kind = createRolloutExperiment({ loadTasks: blockC2Cell });
    const result = await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: { ...base, kindFor: (name) => (name === 'rollout' ? kind : base.kindFor(name)) } });

    const failed = result.records.filter((r) => r.facts.concurrency === 2);
    expect(failed.map((r) => [r.outcome, r.failure_category])).toEqual([['failed', 'harness_error'], ['failed', 'harness_error']]);
    expect(failed[0]!.notes[0]).toMatch(/^harness error: cell host-c2-s2b20p0: /);
    expect(result.records.filter((r) => r.facts.concurrency === 1 && r.outcome === 'ok').length).toBeGreaterThan(0);

    const analyzed = analyzeBundle(out, await kindCatalog(), { write: false });
    const terminal = terminalSummary(analyzed);
    const report = readFileSync(join(out, 'report.md'), 'utf8');
    for (const text of [terminal, report]) {
      expect(text).not.toMatch(/undefined|NaN/);
      expect(text).toContain('host C=2 model 2×20ms');
      expect(text).toContain('host C=1 model 2×20ms');
    }
    // The lead table: the failed cell's row by its coordinates, its rate absent with the reason, the other cell measured.
    const leadRow = (text: string, c: number) => text.split('\n').find((line) => new RegExp(`^\\|? ?host +\\|? ?${c} +\\|? ?2×20ms`).test(line))!;
    for (const text of [terminal, report]) {
      expect(leadRow(text, 2)).toMatch(/– \(no data: no attempt completed \(harness_error=2\): harness error: cell host-c2-s2b20p0: .+\)/);
      expect(leadRow(text, 2)).toMatch(/0\/2/);
      expect(leadRow(text, 1)).toMatch(/\d+\.\d{3} \[/);
    }
    expect(await leftoversOf(analyzed.resolved.run_id)).toEqual([]);
  }, 240_000);
});
