/** Display formatting for reports (data files keep full precision; only what people read is rounded). */

/** Fixed decimals by magnitude (about 4 significant digits), never exponent notation, so tables stay readable and deterministic. */
export function fmt(value: number | null | undefined, unit = ''): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const abs = Math.abs(value);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 10 ? 2 : abs >= 1 ? 3 : abs === 0 ? 0 : 4;
  const text = value.toFixed(digits);
  return unit ? `${text} ${unit}` : text;
}

/**
 * A ratio (or a ratio's CI bound) to 3 significant figures, never exponent notation: 32.9, 0.998,
 * 4110. More digits claim a precision the interval does not have (issue 35: "4110.565×
 * [3560.017, 4403.709]"); comparisons.csv keeps every digit.
 */
export function fmtRatio(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return fmtSignificant(value, 3);
}

/** A configured limit (a gate's 1 + threshold) as given, not rounded: a limit shown as 1.13 for 1.125 would misstate the rule. */
export function fmtLimit(value: number): string {
  return String(Number(value.toFixed(6)));
}

export function fmtSignificant(value: number, figures: number): string {
  if (value === 0) return '0';
  // Round first: 9.996 rounds to 10.0, whose magnitude sets the decimals.
  const rounded = Number(value.toPrecision(figures));
  const magnitude = Math.floor(Math.log10(Math.abs(rounded)));
  return rounded.toFixed(Math.max(0, figures - 1 - magnitude));
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
