/** File names of a run bundle (architecture doc, "Bundle"). Public contract: tools outside sandbench read these. */
export const BUNDLE_FILES = {
  spec: 'spec.yaml',
  resolvedSpec: 'resolved-spec.json',
  plan: 'plan.json',
  journal: 'journal.jsonl',
  samples: 'samples.csv',
  summary: 'summary.csv',
  comparisons: 'comparisons.csv',
  evidence: 'evidence.csv',
  environment: 'environment.json',
  manifest: 'manifest.json',
  reportHtml: 'report.html',
  reportMd: 'report.md',
  densitySummary: 'density-summary.csv',
  /** Model-traffic journal of the run's model service (services/model), when a kind used one. */
  modelJournal: 'model-journal.jsonl',
  /** A fleet merge's record of its shards and hosts. */
  fleet: 'fleet.json',
} as const;
