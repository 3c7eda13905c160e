/**
 * The rollout-step kind's pure parts: the stand-in trainer's admission and staleness, the step
 * figures (step time, worst group straggler), and the analysis's one-value-per-step rule and the
 * start saving against fresh.
 */
import { describe, expect, it } from 'vitest';
import { StepTrainer, type TrainerClock } from '../../experiments/rollout-step/step-trainer.ts';
import { groupStraggler, stepFigures } from '../../experiments/rollout-step/step-figures.ts';
import { rewardParity, savingVsFresh, summarizeStepCells, rolloutStepMetricDesign } from '../../experiments/rollout-step/rollout-step-analysis.ts';
import { retriesPerValidInterval } from '../../experiments/rollout-step/step-validity.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';

/** A clock the test advances: sleep resolves when the test moves time past its end. */
function manualClock(): TrainerClock & { advance(ms: number): Promise<void> } {
  let now = 0;
  let sleepers: { until: number; resolve: () => void }[] = [];
  const flush = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    now: () => now,
    sleep: (ms) => new Promise((resolve) => sleepers.push({ until: now + ms, resolve })),
    async advance(ms) {
      // let the trainer reach its next sleep first (it continues in microtasks after a batch completes)
      await flush();
      now += ms;
      const due = sleepers.filter((s) => s.until <= now);
      sleepers = sleepers.filter((s) => s.until > now);
      for (const s of due) s.resolve();
      await flush();
      await flush();
    },
  };
}

describe('stand-in trainer', () => {
  it('staleness 0: step 1 waits for the trainer to finish step 0, and receives a fresh batch', async () => {
    const clock = manualClock();
    const trainer = new StepTrainer(2, 100, 0, clock);
    const done = trainer.run();
    expect(trainer.admits(0)).toBe(true);
    expect(trainer.admits(1)).toBe(false);
    trainer.startedStep(0);
    await clock.advance(40);
    trainer.completeStep(0);
    await clock.advance(0);
    expect(trainer.admits(1)).toBe(false); // still training on batch 0
    await clock.advance(100);
    expect(trainer.admits(1)).toBe(true);
    trainer.startedStep(1);
    await clock.advance(30);
    trainer.completeStep(1);
    await clock.advance(100);
    const figures = await done;
    expect(figures.map((f) => f.staleness)).toEqual([0, 0]);
    expect(figures[0]!.waitMs).toBe(40);
    expect(figures[1]!.waitMs).toBe(30);
  });

  it('staleness 1: step 1 starts while step 0 rolls out and its batch is one version stale', async () => {
    const clock = manualClock();
    const trainer = new StepTrainer(3, 50, 1, clock);
    const done = trainer.run();
    expect(trainer.admits(1)).toBe(true);
    expect(trainer.admits(2)).toBe(false);
    trainer.startedStep(0);
    trainer.startedStep(1);
    await clock.advance(10);
    trainer.completeStep(0);
    trainer.completeStep(1);
    await clock.advance(50);
    expect(trainer.admits(2)).toBe(true);
    trainer.startedStep(2);
    trainer.completeStep(2);
    await clock.advance(50);
    await clock.advance(50);
    const figures = await done;
    expect(figures.map((f) => f.staleness)).toEqual([0, 1, 1]);
    expect(figures[1]!.waitMs).toBe(0); // its batch was already full when the trainer got to it
  });

  it('abort releases a parked worker and the trainer', async () => {
    const trainer = new StepTrainer(2, 10_000, 0);
    const parked = trainer.admitted(1);
    const done = trainer.run();
    trainer.abort();
    await parked;
    expect(await done).toEqual([]);
  });
});

describe('step figures', () => {
  it('step time spans every attempt of the step; the straggler is the worst group over valid attempts', () => {
    const spans = [
      { step: 0, slot: 0, startMs: 0, endMs: 100, wallMs: 100, valid: true },
      { step: 0, slot: 0, startMs: 0, endMs: 300, wallMs: 300, valid: true },
      { step: 0, slot: 0, startMs: 0, endMs: 120, wallMs: 120, valid: true },
      { step: 0, slot: 1, startMs: 5, endMs: 105, wallMs: 100, valid: true },
      { step: 0, slot: 1, startMs: 5, endMs: 900, wallMs: 895, valid: false },
      { step: 1, slot: 0, startMs: 950, endMs: 1000, wallMs: 50, valid: true },
    ];
    const [s0, s1] = stepFigures(spans);
    expect(s0!.stepMs).toBe(900); // the failed attempt held the step up
    expect(s0!.groupStragglerRatio).toBeCloseTo(300 / 120, 9); // slot 0: 300 ÷ median 120; slot 1 has one valid attempt
    expect(s0!.valid).toBe(4);
    expect(s1!.groupStragglerRatio).toBeNull();
    expect(groupStraggler([10, 10, 10])).toBe(1);
  });
});

function record(step: number, member: number, stepMs: number, start: number, prefix = 'fresh'): TrialRecord {
  return {
    run_id: 'r', schema_version: 1, experiment: 'rollout-step', arm: { backend: 'host', variant: null }, block: 0, position: 0, trial_id: `${prefix}-${step}-${member}`, warmup: false, seed: 1,
    outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null,
    metrics: { step_ms: stepMs, start_ms: start, wall_ms: 1000 }, validity: {}, notes: [],
    facts: { cell: `host-${prefix}-k2`, cell_run: `c-${prefix}`, step_run: `c-${prefix}:s${step}`, prefix, group_size: 2, step },
  } as TrialRecord;
}

describe('rollout-step analysis', () => {
  it('a step is one sample of step time however many attempts carry it; step metrics are per-step cells', () => {
    const records = [0, 1, 2].flatMap((step) => [0, 1, 2, 3].map((member) => record(step, member, 1000 + step, 100)));
    const [cell] = summarizeStepCells(records, 1000, 'r');
    expect(cell!.stepMs).toEqual([1000, 1001, 1002]);
    expect(cell!.stepP95).toBeNull(); // fewer than 30 steps
    expect(rolloutStepMetricDesign('step_ms').unit).toBe('cell');
    expect(rolloutStepMetricDesign('cell_wall_ms').unit).toBe('run');
    expect(rolloutStepMetricDesign('start_ms').unit).toBe('attempt');
  });

  it('the saving against fresh is median(fresh) − median(other) with an interval around it', () => {
    const fresh = [300, 310, 320, 330, 340, 350, 360, 370];
    const fork = [100, 105, 110, 115, 120, 125, 130, 135];
    const saving = savingVsFresh(fresh, fork, 2000, 'seed')!;
    expect(saving.ms).toBe(335 - 117.5);
    expect(saving.ci!.low).toBeLessThanOrEqual(saving.ms);
    expect(saving.ci!.high).toBeGreaterThanOrEqual(saving.ms);
    expect(saving.ci!.low).toBeGreaterThan(0);
    const records = [...fresh.map((s, i) => record(0, i, 5000, s)), ...fork.map((s, i) => record(0, i, 4000, s, 'warm-pool'))];
    const pooled = summarizeStepCells(records, 2000, 'r').find((c) => c.prefix === 'warm-pool')!;
    expect(pooled.saving!.ms).toBe(saving.ms);
    expect(savingVsFresh([], fork, 100, 's')).toBeNull();
  });

  it('fork: prepare and checkpoint count once per group, restore once per child; reward parity matches attempts by block, step, slot and member', () => {
    const withFork = (r: TrialRecord, member: number, reward: number, slot = 0): TrialRecord => ({
      ...r, metrics: { ...r.metrics, reward },
      facts: { ...r.facts, group_slot: slot, group_member: member, ...(r.facts.prefix === 'fork' ? { fork: { prepare_ms: 40 + slot, checkpoint_ms: 5, restore_ms: 10 + member, attempt_ms: 500, child: member } } : {}) },
    });
    const fresh = [0, 1, 2, 3].map((m) => withFork(record(0, m, 5000, 300), m, m === 3 ? 0 : 1));
    const fork = [0, 1, 2, 3].map((m) => withFork(record(0, m, 4000, 100, 'fork'), m, m === 2 ? 0 : 1));
    const other = withFork(record(0, 9, 4000, 100, 'fork'), 0, 1, 1); // a second group: its own prepare
    const cell = summarizeStepCells([...fresh, ...fork, other], 500, 'r').find((c) => c.prefix === 'fork')!;
    expect(cell.fork!.prepare.sort()).toEqual([40, 41]);
    expect(cell.fork!.checkpoint).toHaveLength(2);
    expect(cell.fork!.restore).toEqual([10, 11, 12, 13, 10]);
    // members 0 and 1 agree, 2 (fork 0, fresh 1) and 3 (fork 1, fresh 0) do not; slot 1 has no fresh match
    expect(cell.rewardParity).toEqual({ compared: 4, agree: 2 });
    expect(rewardParity(fresh, fresh)).toEqual({ compared: 4, agree: 4 });
  });
});

describe('retries per valid sample', () => {
  const tally = (retries: number, valid: boolean) => ({ retries, valid });
  it('brackets the ratio of sums, is the same on a rerun, and is absent without a valid sample', () => {
    const attempts = [tally(0, true), tally(1, true), tally(2, false), tally(0, true), tally(1, true), tally(0, false)];
    const ci = retriesPerValidInterval(attempts, 500, 'run:cell');
    expect(ci).not.toBeNull();
    expect(ci!.low).toBeLessThanOrEqual(4 / 4);
    expect(ci!.high).toBeGreaterThanOrEqual(4 / 4);
    expect(ci!.low).toBeGreaterThanOrEqual(0);
    expect(retriesPerValidInterval(attempts, 500, 'run:cell')).toEqual(ci);
    expect(retriesPerValidInterval([tally(2, false), tally(2, false)], 500, 'run:cell')).toBeNull();
    expect(retriesPerValidInterval([tally(0, true)], 500, 'run:cell')).toBeNull();
  });
});
