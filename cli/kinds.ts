/**
 * The kind catalog analysis is handed (kind name → descriptor), from the one kind registry. Loaded
 * lazily: only commands that analyse pay for importing the kinds.
 */
import { analyzeBundle, type AnalyzeBundleResult, type KindCatalog } from '../harness/analyze/index.ts';

export async function kindCatalog(): Promise<KindCatalog> {
  const { EXPERIMENTS } = await import('../experiments/registry.ts');
  return (kind) => (Object.hasOwn(EXPERIMENTS, kind) ? EXPERIMENTS[kind] : undefined);
}

/**
 * A bundle read and analysed in memory for a rendering command (report, compare, gate, reproduce);
 * its CSVs are (re)written only when asked, e.g. when a copied bundle lacks them.
 */
export async function analyzedBundle(dir: string, options: { write?: boolean } = {}): Promise<AnalyzeBundleResult> {
  return analyzeBundle(dir, await kindCatalog(), { write: options.write ?? false });
}
