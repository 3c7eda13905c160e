/**
 * Every file name of a run bundle, in one place (architecture doc, "Bundle"). A public contract:
 * tools outside sandbench read these names. Files a kind adds (density-summary.csv,
 * replay-summary.csv) are declared by that kind's descriptor (`analysis.files`), not here.
 */
export const BUNDLE_FILES = {
  spec: 'spec.yaml',
  resolvedSpec: 'resolved-spec.json',
  plan: 'plan.json',
  journal: 'journal.jsonl',
  /** The trial in flight while the harness runs; found on --resume after a kill. */
  inflight: 'inflight.json',
  /** Trials interrupted by a signal or a kill, re-run on resume (never journal lines). */
  interrupted: 'interrupted.jsonl',
  /** One line per `run` that wrote to the bundle (first and every --resume) with its harness commit. */
  invocations: 'invocations.jsonl',
  samples: 'samples.csv',
  summary: 'summary.csv',
  diagnostics: 'diagnostics.csv',
  comparisons: 'comparisons.csv',
  comparisonsDetail: 'comparisons-detail.csv',
  evidence: 'evidence.csv',
  environment: 'environment.json',
  manifest: 'manifest.json',
  /** `sandbench sign`: an OpenSSH signature over manifest.json (harness/provenance/signature.ts); outside the manifest. */
  signature: 'manifest.json.sig',
  reportHtml: 'report.html',
  reportMd: 'report.md',
  /** Model-traffic journal of the run's model service (services/model), in bundles of kinds that use it. */
  modelJournal: 'model-journal.jsonl',
  /** Fleet merges: the record of shards and hosts, and the per-host analysis. */
  fleet: 'fleet.json',
  perHostSummary: 'per-host-summary.csv',
  fleetComparisons: 'fleet-comparisons.csv',
  fleetReportMd: 'fleet-report.md',
} as const;

export type BundleFileKey = keyof typeof BUNDLE_FILES;

/** The CSVs `analyze` derives from every journal, in the order it writes them (kind files follow, sorted). */
export const ANALYSIS_CSVS = [
  BUNDLE_FILES.samples,
  BUNDLE_FILES.summary,
  BUNDLE_FILES.diagnostics,
  BUNDLE_FILES.comparisons,
  BUNDLE_FILES.comparisonsDetail,
  BUNDLE_FILES.evidence,
] as const;
