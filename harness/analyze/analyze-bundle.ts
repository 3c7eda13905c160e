/** The thin I/O shell of `analyze`: read the bundle (harness/bundle), analyse it, write its CSVs. */
import { readBundle, type Bundle } from '../bundle/read.ts';
import { writeBundleFiles } from '../bundle/write.ts';
import type { BundleAnalysis } from './bundle-analysis.ts';
import { analysisFiles } from './analysis-files.ts';
import { analyzeRecords } from './analyze-records.ts';
import { fallbackAnalysis, type KindAnalysis, type KindCatalog } from './kind-analysis.ts';

/** A bundle as read, with its analysis and the kind descriptor that produced it (what every rendering takes). */
export interface AnalyzedBundle extends Bundle {
  analysis: BundleAnalysis;
  descriptor: KindAnalysis;
}

export interface AnalyzeBundleResult extends AnalyzedBundle {
  /** Files written (or, with write: false, that would be written), in order. */
  files: string[];
  /** e.g. a torn last journal line that was dropped. */
  warnings: string[];
}

export interface AnalyzeBundleOptions {
  /** false: analyse in memory only (report, compare, gate), leaving the bundle's files untouched. */
  write?: boolean;
}

/** The kind's analysis descriptor, or a neutral one for a kind this build does not know. */
export function descriptorFor(kinds: KindCatalog, kind: string): KindAnalysis {
  return kinds(kind)?.analysis ?? fallbackAnalysis(kind);
}

/** Analysis of a bundle already read (or of a derived one, e.g. the gate's A/A halves). */
export function analyzeLoadedBundle(bundle: Bundle, descriptor: KindAnalysis): AnalyzedBundle {
  const analysis = analyzeRecords({ resolved: bundle.resolved, records: bundle.journal, plan: bundle.plan, journalWarning: bundle.journalWarning }, descriptor);
  return { ...bundle, analysis, descriptor };
}

export function analyzeBundle(bundleDir: string, kinds: KindCatalog, options: AnalyzeBundleOptions = {}): AnalyzeBundleResult {
  const bundle = readBundle(bundleDir);
  const analyzed = analyzeLoadedBundle(bundle, descriptorFor(kinds, bundle.resolved.spec.experiment));
  const files = analysisFiles(analyzed.analysis);
  const written = options.write === false ? [...files.keys()] : writeBundleFiles(bundleDir, files);
  return { ...analyzed, files: written, warnings: bundle.journalWarning ? [bundle.journalWarning] : [] };
}
