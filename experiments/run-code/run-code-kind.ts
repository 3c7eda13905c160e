/**
 * The `run-code` kind: verl's reward-step load on a sandbench substrate without a GPU. A request
 * stream (generated in the shape verl's reward path sends, or recorded by `serve run-code`) is
 * replayed through the real /run_code server (services/run-code) against each arm's backend, at each
 * client concurrency (verl's max_concurrent), in seeded interleaved blocks (run-code-plan.ts). One
 * trial = one request; a cell's requests run as one closed loop (run-code-cell.ts), so the first
 * request of a cell runs the whole cell and the others return their records from it.
 */
import { isAbsolute, join } from 'node:path';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { languageSupport, type LanguageSupport, type VerlLanguage } from '../../services/run-code/languages.ts';
import { baseRecord } from '../trial-experiment.ts';
import { loadStream, type StreamEntry } from './request-stream.ts';
import { RUN_CODE_JOURNAL_FILE, runCodeKindAnalysis } from './run-code-analysis.ts';
import { runCell } from './run-code-cell.ts';
import { buildRunCodePlan, cellRunKey } from './run-code-plan.ts';
import { runCodeOptions, runCodeSection } from './run-code-spec.ts';

function streamPath(spec: Spec): string {
  const path = runCodeOptions(spec).stream;
  return isAbsolute(path) ? path : join(PROJECT_ROOT, path);
}

interface RunState {
  stream: StreamEntry[];
  languages: ReadonlyMap<VerlLanguage, LanguageSupport>;
  cells: Map<string, Promise<Map<string, TrialRecord>>>;
  /** Every planned trial, to find a cell's requests from its first one. */
  byCell: Map<string, PlannedTrial[]>;
}

function cellsOf(plan: Plan): Map<string, PlannedTrial[]> {
  const byCell = new Map<string, PlannedTrial[]>();
  for (const planned of plan.trials) {
    const key = cellRunKey(planned);
    if (!byCell.has(key)) byCell.set(key, []);
    byCell.get(key)!.push(planned);
  }
  return byCell;
}

export function createRunCodeExperiment(): Experiment {
  let state: RunState | null = null;
  const plan = (spec: Spec) => buildRunCodePlan(spec, loadStream(streamPath(spec)).length);
  return {
    kind: 'run-code',
    spec: { section: runCodeSection },
    analysis: runCodeKindAnalysis,
    plan,
    executorArms: (spec) => specArms(spec),
    async prepare(ctx: ExperimentContext) {
      const stream = loadStream(streamPath(ctx.spec));
      state = { stream, languages: languageSupport(ctx.run.image.rootfsDir), cells: new Map(), byCell: cellsOf(plan(ctx.spec)) };
    },
    async runTrial(planned, ctx) {
      if (!state) throw new Error('run-code kind: runTrial before prepare');
      const key = cellRunKey(planned);
      let cell = state.cells.get(key);
      if (!cell) {
        // On --resume a cell's remaining requests run as a smaller closed loop; the ones journalled before keep their records.
        const requests = state.byCell.get(key)!.filter((request) => request.position >= planned.position);
        cell = runCell({ ctx, planned: requests, stream: state.stream, languages: state.languages, slots: runCodeOptions(ctx.spec).slots, journalPath: join(ctx.bundleDir, RUN_CODE_JOURNAL_FILE) });
        state.cells.set(key, cell);
      }
      // A harness error still belongs to its cell, so it stays in that group's denominator.
      const failed = (note: string): TrialRecord => ({ ...baseRecord(ctx, planned), outcome: 'failed', failure_category: 'harness_error', notes: [`harness error: ${note}`], facts: { concurrency: planned.params?.concurrency, cell_run: key } });
      try {
        return (await cell).get(planned.trial_id) ?? failed('the cell run did not produce this request');
      } catch (error) {
        return failed(error instanceof Error ? error.message : String(error));
      }
    },
    async teardown() {
      state = null;
    },
  };
}

export const runCodeExperiment = createRunCodeExperiment();
