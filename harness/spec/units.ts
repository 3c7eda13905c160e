/** Parsing of human-friendly durations and sizes used in specs. */

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const SIZE_UNITS_MIB: Record<string, number> = { kib: 1 / 1024, k: 1 / 1024, mib: 1, m: 1, gib: 1024, g: 1024 };

/** "500ms" | "30s" | "2m" | number of seconds → milliseconds, or null when malformed. */
export function parseDurationMs(value: string | number): number | null {
  if (typeof value === 'number') return value > 0 ? value * 1000 : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)\s*$/i.exec(value);
  if (!match) return null;
  const amount = Number(match[1]) * DURATION_UNITS_MS[match[2]!.toLowerCase()]!;
  return amount > 0 ? amount : null;
}

/** "256MiB" | "2GiB" | number of MiB → MiB, or null when malformed. */
export function parseSizeMiB(value: string | number): number | null {
  if (typeof value === 'number') return value >= 0 ? value : null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(kib|k|mib|m|gib|g)\s*$/i.exec(value);
  if (!match) return null;
  return Number(match[1]) * SIZE_UNITS_MIB[match[2]!.toLowerCase()]!;
}
