/**
 * When a ratio of two statistics means nothing: a control statistic of 0 (division by zero), a
 * non-positive statistic (timings are positive; a ratio of signed values has no multiplicative
 * reading), or resamples whose control statistic is 0 (the interval would reach infinity). The
 * caller leaves the ratio cell empty and decides on the difference instead.
 */
export function undefinedRatioReason(candidate: number, control: number, replicates?: ArrayLike<number>): string | null {
  if (!Number.isFinite(candidate) || !Number.isFinite(control)) return `a statistic is not finite (candidate ${candidate}, control ${control})`;
  if (control === 0) return `control statistic is 0${candidate === 0 ? ' (both are 0)' : ''}: division by zero`;
  if (control < 0 || candidate < 0) return `a statistic is negative (candidate ${candidate}, control ${control}): a ratio has no multiplicative reading`;
  if (replicates) {
    let bad = 0;
    for (let i = 0; i < replicates.length; i++) if (!Number.isFinite(replicates[i]!) || !(replicates[i]! >= 0)) bad++;
    if (bad > 0) return `the control statistic is 0 in ${bad} of ${replicates.length} resamples (the interval would reach infinity)`;
  }
  return null;
}
