/** Display formatting for reports (data files keep full precision; only what people read is rounded). */

/** Fixed decimals by magnitude (about 4 significant digits), never exponent notation, so tables stay readable and deterministic. */
export function fmt(value: number | null | undefined, unit = ''): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 10 ? 2 : abs >= 1 ? 3 : abs === 0 ? 0 : 4;
  const text = value.toFixed(digits);
  return unit ? `${text} ${unit}` : text;
}

export function fmtRatio(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value.toFixed(3);
}

export function fmtInterval(low: number | null | undefined, high: number | null | undefined, format: (v: number) => string = (v) => fmt(v)): string {
  if (low === null || low === undefined || high === null || high === undefined || !Number.isFinite(low) || !Number.isFinite(high)) return '—';
  return `[${format(low)}, ${format(high)}]`;
}

export function fmtPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)}%`;
}

/** A comparison's method without its per-row seed (the seed stays in comparisons.csv), so equal methods are written once. */
export function methodWithoutSeed(method: string): string {
  return method.replace(/; seed \d+ \([^)]*\)$/, '; seed per comparison in comparisons.csv');
}

/** One home for cell escaping: the Table renderers in harness/analyze/table.ts. */
export { escapeHtml, mdCell } from '../../harness/analyze/table.ts';
