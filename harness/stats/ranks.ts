/** Mid-ranks (1-based; tied values share the mean of their ranks), as every rank test with ties uses. */
export interface RankResult {
  ranks: Float64Array;
  /** Sizes of the tie groups larger than one, for the tie corrections of the normal approximations. */
  tieSizes: number[];
}

export function midRanks(values: ArrayLike<number>): RankResult {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  const ranks = new Float64Array(n);
  const tieSizes: number[] = [];
  let i = 0;
  while (i < n) {
    let j = i;
    while (j + 1 < n && values[order[j + 1]!] === values[order[i]!]) j++;
    const rank = (i + j + 2) / 2;
    for (let k = i; k <= j; k++) ranks[order[k]!] = rank;
    if (j > i) tieSizes.push(j - i + 1);
    i = j + 1;
  }
  return { ranks, tieSizes };
}
