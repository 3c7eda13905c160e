/**
 * A toy experiment kind, as a new kind would land: everything it needs lives in this folder and the
 * only generic line is its registry entry (the catalog in toy-kind.test.ts). Its trial is one
 * launch of /bin/true (the generic single-launch trial); its analysis groups trials by a fact,
 * joins its own evidence scenario, leads with its own metric and adds a file, a table and a chart.
 */
import { toCsv } from '../../../../harness/bundle/csv.ts';
import type { KindAnalysis } from '../../../../harness/contracts/experiment-kind.ts';
import { createTrialExperiment, type TaskKind } from '../../../../experiments/trial-experiment.ts';

export const TOY_FILE = 'toy-summary.csv';

export const toyAnalysis: KindAnalysis = {
  scenario: 'toy_scenario',
  topic: 'toy_topic',
  primaryMetrics: ['spin_ms'],
  groupOf: (record) => ({ backend: record.arm.backend, variant: typeof record.facts.flavour === 'string' ? record.facts.flavour : null }),
  // Its groups are known from the journal only (like density's cells).
  specArms: () => [],
  trialsPerBlock: 1,
  files: [TOY_FILE],
  extension: (input) => {
    const formal = input.records.filter((r) => !r.warmup);
    const rows = [['trials', formal.length], ['ok', formal.filter((r) => r.outcome === 'ok').length]];
    return {
      files: new Map([[TOY_FILE, toCsv(['what', 'count'], rows)]]),
      evidence: [],
      tables: [{ caption: 'Toy counts', header: ['what', 'count'], rows: rows.map((r) => r.map(String)) }],
      charts: [{ id: 'toy-chart', title: 'Toy spin by position', x: { title: 'position' }, y: { title: 'spin_ms' }, points: formal.map((r) => ({ series: r.arm.backend, x: r.position, y: r.metrics.spin_ms ?? 0 })) }],
    };
  },
};

const toyTask: TaskKind = {
  // The spec schema's kind list would gain 'toy' in a real kind; the toy never runs through the schema.
  kind: 'toy' as TaskKind['kind'],
  analysis: toyAnalysis,
  async prepareBaseline() {},
  task: () => ({ argv: ['/bin/true'], env: {}, stdin: 'none' }),
  readyMarker: () => null,
  requiresResult: () => false,
  check: async () => ({ validity: {} }),
};

export const toyExperiment = createTrialExperiment(toyTask);
