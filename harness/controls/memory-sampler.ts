/**
 * Samples a budget's memory every 50 ms (the cadence) and keeps the maximum. The kernel's
 * own peak counter (when present) is read at stop and reported beside the sampled one, because a
 * 50 ms sampler can miss a short spike.
 */
import type { CgroupBudget } from './cgroup-budget.ts';

export const PEAK_SAMPLE_INTERVAL_MS = 50;

export interface PeakReport {
  sampledPeakBytes: number;
  kernelPeakBytes: number | null;
  /** max(sampled, kernel): the figure reported as peak. */
  peakBytes: number;
  samples: number;
  /** Longest observed gap between samples (event-loop stalls make it exceed the interval). */
  maxGapMs: number;
}

export interface PeakSampler {
  stop(): PeakReport;
}

export function startPeakSampler(budget: CgroupBudget, intervalMs = PEAK_SAMPLE_INTERVAL_MS): PeakSampler {
  let peak = 0;
  let samples = 0;
  let last = performance.now();
  let maxGap = 0;
  const sample = () => {
    const now = performance.now();
    if (samples > 0) maxGap = Math.max(maxGap, now - last);
    last = now;
    try {
      peak = Math.max(peak, budget.memoryCurrentBytes());
      samples++;
    } catch {
      // budget being destroyed: the last good sample stands
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const kernelPeakBytes = budget.kernelPeakBytes();
      return {
        sampledPeakBytes: peak,
        kernelPeakBytes,
        peakBytes: Math.max(peak, kernelPeakBytes ?? 0),
        samples,
        maxGapMs: maxGap,
      };
    },
  };
}
