/**
 * A/A mode: one bundle's formal blocks split into an earlier and a later half, gated against each
 * other. Both halves ran the same code on the same host, so every "regression" is a false alarm;
 * splitting in time (not interleaved) keeps the slow drift a real rerun would see. Each half is
 * analysed by the same analysis (and kind descriptor) as the whole bundle.
 */
import { analyzeLoadedBundle, type AnalyzedBundle } from '../../harness/analyze/index.ts';

export function splitBlocks(bundle: AnalyzedBundle): { first: AnalyzedBundle; second: AnalyzedBundle; cut: number } {
  const blocks = [...new Set(bundle.journal.filter((r) => !r.warmup).map((r) => r.block))].sort((a, b) => a - b);
  const cut = blocks[Math.floor(blocks.length / 2)] ?? 0;
  const half = (keep: (block: number) => boolean, suffix: string): AnalyzedBundle =>
    analyzeLoadedBundle(
      {
        ...bundle,
        resolved: { ...bundle.resolved, run_id: `${bundle.resolved.run_id}:${suffix}` },
        journal: bundle.journal.filter((r) => !r.warmup && keep(r.block)),
        plan: bundle.plan ? { ...bundle.plan, trials: bundle.plan.trials.filter((t) => !t.warmup && keep(t.block)) } : null,
      },
      bundle.descriptor,
    );
  return { first: half((b) => b < cut, 'aa-first-half'), second: half((b) => b >= cut, 'aa-second-half'), cut };
}
