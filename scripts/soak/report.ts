/**
 * The soak's outputs: the verdict table (text for the terminal, markdown and CSV through the one
 * Table type of harness/analyze/table.ts) and every series as one wide CSV (harness/bundle/csv.ts).
 */
import type { Table } from '../../harness/analyze/table.ts';
import { toCsv } from '../../harness/bundle/csv.ts';
import type { SampleValues } from './measure.ts';
import { RESOURCES } from './resources.ts';
import type { ResourceVerdict } from './verdict.ts';

export interface Sample {
  at: string;
  minute: number;
  /** Taken before the first full campaign cycle ended: kept in the CSV, not judged. */
  warmup: boolean;
  values: SampleValues;
}

export interface StepRecord {
  cycle: number;
  step: string;
  startedAt: string;
  seconds: number;
  error: string | null;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

function digitsFor(unit: string): number {
  return unit === 'MiB' || unit === 'load' ? 1 : 0;
}

export function verdictTable(verdicts: readonly ResourceVerdict[], judgedSamples: number, caption: string): Table {
  return {
    caption,
    header: ['resource', 'unit', 'n', 'start', 'end', 'slope/h [95% CI]', 'tolerance', 'verdict'],
    rows: verdicts.map((v) => {
      const d = digitsFor(v.resource.unit);
      return [
        v.resource.id,
        v.resource.unit,
        String(v.n),
        fixed(v.start, d),
        fixed(v.end, d),
        `${fixed(v.slopePerHour, 2)} [${fixed(v.lowerPerHour, 2)}, ${fixed(v.upperPerHour, 2)}]`,
        v.resource.role === 'bounded' ? `${v.resource.tolerance}` : '—',
        v.verdict,
      ];
    }),
    rightAligned: [2, 3, 4, 6],
    footnote:
      `n = judged samples (of ${judgedSamples} after the warm-up cycle; a backend's gaps excluded). start/end: medians of the first/last sixth (1–5 samples). ` +
      'Slope: Theil–Sen, 95% Sen rank interval. GROWS = interval above 0 AND end − start > tolerance (docs/soak.md).',
  };
}

export function seriesCsv(samples: readonly Sample[]): string {
  const ids = RESOURCES.map((r) => r.id);
  return toCsv(['at', 'minute', 'warmup', ...ids], samples.map((s) => [s.at, s.minute.toFixed(3), s.warmup, ...ids.map((id) => s.values[id] ?? null)]));
}

export function stepsCsv(steps: readonly StepRecord[]): string {
  return toCsv(['cycle', 'step', 'started_at', 'seconds', 'error'], steps.map((s) => [s.cycle, s.step, s.startedAt, s.seconds.toFixed(1), s.error]));
}
