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
