/**
 * Extension point for experiment kinds whose results are not one timing per trial (density's
 * batches, isolation's boundary checks). An extension is a PURE function of the analysis input —
 * no file system, no processes, no executors — returning extra files (name → content) and evidence
 * rows. Register it from a module that `harness/analyze/registered-extensions.ts` imports.
 */
import type { TrialRecord } from '../journal/trial-record.ts';
import type { EvidenceRow } from './evidence.ts';
import type { ResolvedSpec } from '../spec/resolve-spec.ts';

export type { EvidenceRow } from './evidence.ts';

export interface AnalysisInput {
  resolved: ResolvedSpec;
  /** Every journal record, warmups and failures included, in journal order. */
  records: TrialRecord[];
}

export interface AnalysisExtensionOutput {
  files: Map<string, string>;
  evidence: EvidenceRow[];
}

export type AnalysisExtension = (input: AnalysisInput) => AnalysisExtensionOutput;

const registry = new Map<string, AnalysisExtension>();

export function registerAnalysisExtension(kind: string, extension: AnalysisExtension): void {
  if (registry.has(kind) && registry.get(kind) !== extension) throw new Error(`an analysis extension for kind "${kind}" is already registered`);
  registry.set(kind, extension);
}

export function analysisExtensionFor(kind: string): AnalysisExtension | undefined {
  return registry.get(kind);
}
