/** Unit of a metric from its name's suffix (the journal's naming convention: ready_ms, payload_bytes...). */
const SUFFIX_UNITS: [string, string][] = [
  ['_ms', 'ms'],
  ['_ns', 'ns'],
  ['_us', 'us'],
  ['_s', 's'],
  ['_bytes', 'bytes'],
  ['_kib', 'KiB'],
  ['_mib', 'MiB'],
  ['_gib', 'GiB'],
  ['_count', 'count'],
  ['_pct', 'percent'],
];

/** Empty string when the name carries no unit: an unknown unit is left blank rather than guessed. */
export function unitOf(metric: string): string {
  const lower = metric.toLowerCase();
  for (const [suffix, unit] of SUFFIX_UNITS) if (lower.endsWith(suffix)) return unit;
  return '';
}

/** The timing metrics a comparison defaults to, in report order. */
export const TIMING_METRICS = ['ready_ms', 'result_ms', 'completion_ms'] as const;
