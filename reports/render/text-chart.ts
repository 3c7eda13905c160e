/**
 * A dot-and-interval chart in plain text, for the places an SVG cannot go (report.md on GitHub, a
 * job summary, a terminal): one line per row, `├──●──┤` on a shared axis, logarithmic when the
 * values span more than 10× (the same rule as the SVG plots), with optional reference lines (1×, a
 * gate limit). Pure and deterministic.
 */
import { isWide } from '../plots/plot-specs.ts';

export interface IntervalRow {
  label: string;
  value: number | null;
  low: number | null;
  high: number | null;
  /** Shown after the value (e.g. "n=30", "clusters"). */
  note?: string;
}

export interface TextChartOptions {
  /** Plot columns between the bars (default 48). */
  width?: number;
  /** Vertical reference lines, e.g. [{ at: 1, label: '1×' }]. */
  marks?: { at: number; label: string }[];
  format: (value: number) => string;
}

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** The chart's lines (no trailing newline); the first says the scale. */
export function textIntervalChart(title: string, rows: readonly IntervalRow[], options: TextChartOptions): string[] {
  const width = options.width ?? 48;
  const marks = options.marks ?? [];
  const values = [...rows.flatMap((r) => [r.value, r.low, r.high]), ...marks.map((m) => m.at)].filter(finite);
  if (values.length === 0) return [`${title}: no values to plot`];
  const log = isWide(values);
  const f = (v: number) => (log ? Math.log10(v) : v);
  let lo = f(Math.min(...values));
  let hi = f(Math.max(...values));
  const pad = (hi - lo) * 0.04 || (log ? 0.1 : Math.abs(hi) * 0.05 || 1);
  lo -= pad;
  hi += pad;
  const col = (v: number) => Math.max(0, Math.min(width - 1, Math.round(((f(v) - lo) / (hi - lo)) * (width - 1))));
  const labelWidth = Math.max(...rows.map((r) => r.label.length), 0);
  const background = () => {
    const cells = Array.from({ length: width }, () => ' ');
    for (const m of marks) cells[col(m.at)] = '┆';
    return cells;
  };
  const lines = [`${title}${log ? ' (log scale)' : ''}`];
  for (const r of rows) {
    const cells = background();
    if (finite(r.low) && finite(r.high)) {
      const a = col(r.low);
      const b = col(r.high);
      for (let i = a; i <= b; i++) cells[i] = '─';
      cells[a] = '├';
      cells[b] = '┤';
    }
    if (finite(r.value)) cells[col(r.value)] = '●';
    const shown = finite(r.value) ? options.format(r.value) : '—';
    const interval = finite(r.low) && finite(r.high) ? ` [${options.format(r.low)}, ${options.format(r.high)}]` : '';
    lines.push(`${r.label.padEnd(labelWidth)} │${cells.join('')}│ ${shown}${interval}${r.note ? ` ${r.note}` : ''}`);
  }
  // Axis: the two ends, plus every power of ten inside a log axis.
  const ticks = new Map<number, string>([
    [0, options.format(log ? 10 ** lo : lo)],
    [width - 1, options.format(log ? 10 ** hi : hi)],
  ]);
  if (log) for (let e = Math.ceil(lo); e <= Math.floor(hi); e++) ticks.set(col(10 ** e), options.format(10 ** e));
  const axis = Array.from({ length: width }, () => '─');
  for (const c of ticks.keys()) axis[c] = '┴';
  lines.push(`${' '.repeat(labelWidth)} └${axis.join('')}┘`);
  const labels = Array.from({ length: width + 2 }, () => ' ');
  let free = 0;
  for (const [c, text] of [...ticks].sort(([a], [b]) => a - b)) {
    const start = Math.min(Math.max(c + 1 - Math.floor(text.length / 2), free), width + 2 - text.length);
    if (start < free) continue;
    for (let i = 0; i < text.length; i++) labels[start + i] = text[i]!;
    free = start + text.length + 1;
  }
  lines.push(`${' '.repeat(labelWidth)} ${labels.join('').trimEnd()}`);
  for (const m of marks) lines.push(`${' '.repeat(labelWidth)}  ┆ at ${options.format(m.at)}: ${m.label}`);
  return lines;
}
