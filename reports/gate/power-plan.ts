/**
 * `sandbench power <pilot-bundle> --effect 5% [--power 0.8]`: blocks per run needed to detect a
 * slowdown of `effect` (or to pass non-inferiority at that threshold when nothing changed), per
 * arm/metric, from the pilot's own variability. Same formula as the gate's "≈N more blocks"
 * (harness/stats/power.ts): n = n_pilot · ((z_0.975 + z_power) · SE_pilot / log(1 + effect))².
 *   cross-run  — two independent runs of this arm: SE_pilot = √2 · bootstrap SE of the arm's log P50
 *                (within-run variance only; add `gate --calibrate` for run offsets);
 *   interleaved — this arm vs the first arm in the same blocks: bootstrap SE of the paired log ratio.
 */
import { blocksNeeded, effectDistance, independentLogRatioReplicates, pairedLogRatioReplicates, replicateSe, seedFromString, STATISTIC_P, type GateStatistic } from '../../harness/stats/index.ts';
import { samplesOf, type AnalyzedBundle as Bundle } from '../../harness/analyze/index.ts';
import { armsOf } from '../compare/bundle-comparison.ts';
import { defaultGateMetrics } from './gate.ts';

export interface PowerRow {
  design: 'cross-run' | 'interleaved';
  arm: string;
  metric: string;
  nPilot: number;
  /** SE of the log ratio at nPilot blocks. */
  se: number;
  blocks: number | null;
}

export interface PowerPlan {
  effect: number;
  power: number;
  statistic: GateStatistic;
  rows: PowerRow[];
  method: string;
}

export function powerPlan(pilot: Bundle, options: { effect: number; power: number; metrics?: string[]; statistic?: GateStatistic; resamples?: number }): PowerPlan {
  const statistic = options.statistic ?? 'p50';
  const p = STATISTIC_P[statistic];
  const resamples = options.resamples ?? 2000;
  const metrics = options.metrics && options.metrics.length > 0 ? options.metrics : defaultGateMetrics(pilot, pilot);
  const arms = armsOf(pilot);
  const distance = effectDistance(options.effect);
  const rows: PowerRow[] = [];
  for (const metric of metrics) {
    const byArm = new Map(arms.map((arm) => [arm, samplesOf(pilot.analysis, metric, arm).filter((s) => s.value > 0)]));
    for (const arm of arms) {
      const values = byArm.get(arm)!.map((s) => s.value);
      if (values.length < 6) continue;
      // A run against an independent copy of itself: the replicate spread is √2 × one run's SE.
      const reps = independentLogRatioReplicates(values, values, p, resamples, seedFromString(`${pilot.resolved.run_id}:power:${metric}:${arm}`));
      const se = replicateSe(reps);
      rows.push({ design: 'cross-run', arm, metric, nPilot: values.length, se, blocks: blocksNeeded({ se, n: values.length, distance }, options.power) });
    }
    const control = arms[0];
    for (const arm of arms.slice(1)) {
      const c = new Map(byArm.get(arm)!.map((s) => [s.block, s.value]));
      const k = new Map(byArm.get(control!)!.map((s) => [s.block, s.value]));
      const common = [...c.keys()].filter((b) => k.has(b)).sort((a, b) => a - b);
      if (common.length < 6) continue;
      const reps = pairedLogRatioReplicates(common.map((b) => c.get(b)!), common.map((b) => k.get(b)!), p, resamples, seedFromString(`${pilot.resolved.run_id}:power:${metric}:${arm}:${control}`));
      const se = replicateSe(reps);
      rows.push({ design: 'interleaved', arm: `${arm} vs ${control}`, metric, nPilot: common.length, se, blocks: blocksNeeded({ se, n: common.length, distance }, options.power) });
    }
  }
  return {
    effect: options.effect,
    power: options.power,
    statistic,
    rows,
    method: `n = n_pilot·((z0.975 + z${options.power})·SE_pilot / log(1 + ${options.effect}))², SE of the log ${statistic.toUpperCase()} ratio from ${resamples} bootstrap resamples of the pilot (cross-run: independent resampling, within-run variance only; interleaved: paired blocks); 95% two-sided interval, one-sided 2.5% per decision`,
  };
}

export function powerText(plan: PowerPlan): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `blocks per run to detect a ${pct(plan.effect)} slowdown — or to pass a ${pct(plan.effect)} non-inferiority gate when nothing changed — with ${pct(plan.power)} power (${plan.statistic.toUpperCase()}):`,
  ];
  const header = ['design', 'arm', 'metric', 'pilot n', 'SE(log ratio) at pilot n', 'blocks per run'];
  const body = plan.rows.map((r) => [r.design, r.arm, r.metric, String(r.nPilot), r.se.toPrecision(3), r.blocks === null ? '—' : String(r.blocks)]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  lines.push(line(header), ...body.map(line), `method: ${plan.method}`);
  if (plan.rows.length === 0) lines.push('no arm/metric with ≥ 6 positive ok values: nothing to plan from');
  return `${lines.join('\n')}\n`;
}
