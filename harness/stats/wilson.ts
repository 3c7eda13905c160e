/** Wilson score interval for a binomial proportion (Wilson 1927): honest near 0 and 1, unlike the Wald interval. */
import { normalQuantile } from './normal.ts';

export function wilsonInterval(successes: number, trials: number, level = 0.95): { low: number; high: number } {
  if (trials <= 0) return { low: 0, high: 1 };
  const z = normalQuantile(1 - (1 - level) / 2);
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}
