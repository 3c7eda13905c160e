/**
 * Multiplicity control across the family of tests one run draws (every comparison's rank test, or
 * every drift test). Pure: p-values in, adjusted p-values out, in input order.
 */

/**
 * Holm's step-down adjustment (Holm, Scand. J. Statist. 6, 1979): controls the family-wise error
 * rate at α under any dependence, uniformly more powerful than Bonferroni. adjusted_(i) =
 * max_{j ≤ i} min(1, (m − j + 1) p_(j)).
 */
export function holm(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/**
 * Benjamini–Hochberg step-up adjusted p-values (q-values). Benjamini & Hochberg, JRSS B 57 (1995):
 * controls the false discovery rate among the rejected hypotheses at level q under independence
 * or positive regression dependence (Benjamini & Yekutieli 2001), which timing metrics of the same
 * trials (ready, completion) satisfy: a slow launch makes both slower.
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const { p, i } = order[rank - 1]!;
    running = Math.min(running, (p * m) / rank);
    adjusted[i] = Math.min(1, running);
  }
  return adjusted;
}

/** Holm over the entries that have a p-value; null entries stay null and do not count in the family. */
export function holmWithGaps(pValues: readonly (number | null)[]): (number | null)[] {
  const present = pValues.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== null && Number.isFinite(x.p));
  const adjusted = holm(present.map((x) => x.p));
  const out: (number | null)[] = pValues.map(() => null);
  present.forEach((x, k) => (out[x.i] = adjusted[k]!));
  return out;
}
