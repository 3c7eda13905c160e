/**
 * The kind catalog analysis is handed (kind name → descriptor), from the one kind registry. Loaded
 * lazily: only commands that analyse pay for importing the kinds.
 */
import type { KindCatalog } from '../harness/analyze/kind-analysis.ts';

export async function kindCatalog(): Promise<KindCatalog> {
  const { EXPERIMENTS } = await import('../experiments/registry.ts');
  return (kind) => EXPERIMENTS[kind as keyof typeof EXPERIMENTS];
}
