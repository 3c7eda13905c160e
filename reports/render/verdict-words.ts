/**
 * The words a verdict is said in. comparisons.csv's `conclusion` is a fixed vocabulary ("candidate
 * faster" / "candidate slower", by the sign of the difference of medians); on a metric that is not a
 * time (bytes, MiB, counts) "slower" is wrong, so renderings say larger / smaller there.
 */

/** Units that measure time; a metric with no unit is a time when its name ends in one. */
const TIME_UNITS = new Set(['ns', 'us', 'µs', 'ms', 's', 'sec', 'seconds', 'min', 'h']);

export function isTimeMetric(metric: string, unit: string): boolean {
  if (unit) return TIME_UNITS.has(unit);
  return /_(ns|us|ms|s)$/.test(metric);
}

/** The conclusion as shown for this metric: the CSV's words for times, larger/smaller otherwise. */
export function conclusionWords(conclusion: string, metric: string, unit: string): string {
  if (isTimeMetric(metric, unit)) return conclusion;
  if (conclusion === 'candidate faster') return 'candidate smaller';
  if (conclusion === 'candidate slower') return 'candidate larger';
  return conclusion;
}

/** "faster than" / "slower than" for times, "smaller than" / "larger than" otherwise; null without a verdict. */
export function ratioWords(conclusion: string, metric: string, unit: string): string | null {
  const time = isTimeMetric(metric, unit);
  if (conclusion === 'candidate faster') return time ? 'faster than' : 'smaller than';
  if (conclusion === 'candidate slower') return time ? 'slower than' : 'larger than';
  return null;
}
