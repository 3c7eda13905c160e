/**
 * The scheduler (harness/schedule/run-schedule.ts) on real timers with short jobs: the pool bounds
 * jobs in flight, the cap bounds starts in flight (and only starts), bursts wait for the previous
 * burst, staggered arrivals keep their spacing, a failed or unreported start frees its slot, and a
 * job that throws stops the schedule.
 */
import { describe, expect, it } from 'vitest';
import { arrivalOf, runSchedule, type StartSignal } from '../../../harness/schedule/index.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A job that starts for startMs, then works for workMs; counts jobs and starts in flight. */
function probe(startMs: number, workMs: number) {
  const state = { jobs: 0, starts: 0, maxJobs: 0, maxStarts: 0, ran: [] as number[] };
  const run = async (job: number, signal: StartSignal) => {
    state.ran.push(job);
    state.jobs++;
    state.starts++;
    state.maxJobs = Math.max(state.maxJobs, state.jobs);
    state.maxStarts = Math.max(state.maxStarts, state.starts);
    await sleep(startMs);
    state.starts--;
    signal.started();
    await sleep(workMs);
    state.jobs--;
    return job * 10;
  };
  return { state, run };
}

describe('runSchedule', () => {
  it('closed loop: C workers, every job once, no pool wait, no cap → no admission wait', async () => {
    const { state, run } = probe(2, 5);
    const result = await runSchedule({ jobs: 10, arrival: arrivalOf('closed'), workers: 3, admissionCap: null, seed: 1, run });
    expect([...state.ran].sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(state.maxJobs).toBe(3);
    expect(result.jobs.map((j) => j.value).sort((a, b) => a - b)).toEqual([...Array(10).keys()].map((j) => j * 10));
    for (const { timing } of result.jobs) {
      expect(timing.poolWaitMs).toBeLessThan(1);
      expect(timing.admissionWaitMs).toBeLessThan(5);
      expect(timing.startFailed).toBe(false);
      // setTimeout(2) may fire up to ~1 ms early against hrtime (timers run on a millisecond clock):
      // the latency is the sleep's, measured, so only its order of magnitude is asserted.
      expect(timing.startLatencyMs).toBeGreaterThanOrEqual(1);
    }
    expect(result.starts.peak).toBe(3);
  });

  it('burst(12) with a cap of 4: never more than 4 starting, 8 jobs wait for admission, running jobs are not capped', async () => {
    const { state, run } = probe(20, 60);
    const result = await runSchedule({ jobs: 12, arrival: arrivalOf('burst(12)'), workers: 12, admissionCap: 4, seed: 1, run });
    expect(state.maxStarts).toBe(4);
    expect(state.maxJobs).toBeGreaterThan(4);
    expect(result.starts.peak).toBe(4);
    const waits = result.jobs.map((j) => j.timing.admissionWaitMs).sort((a, b) => a - b);
    expect(waits.slice(0, 4).every((w) => w < 5)).toBe(true);
    expect(waits.slice(4).every((w) => w >= 15)).toBe(true);
    // 12 starts of 20 ms, 4 at a time: 3 waves, so the last waited about 40 ms
    expect(waits[11]!).toBeGreaterThanOrEqual(35);
  });

  it('burst(12) without a cap: all 12 start at once', async () => {
    const { state, run } = probe(20, 5);
    const result = await runSchedule({ jobs: 12, arrival: arrivalOf('burst(12)'), workers: 12, admissionCap: null, seed: 1, run });
    expect(state.maxStarts).toBe(12);
    expect(result.starts.peak).toBe(12);
    expect(result.starts.mean).toBeGreaterThan(1);
  });

  it('burst(4) of 8 jobs: the second burst arrives only after the first has ended', async () => {
    const { run } = probe(2, 10);
    const result = await runSchedule({ jobs: 8, arrival: arrivalOf('burst(4)'), workers: 8, admissionCap: null, seed: 1, run });
    const timing = new Map(result.jobs.map((j) => [j.timing.job, j.timing]));
    const firstEnd = Math.max(...[0, 1, 2, 3].map((j) => Number(timing.get(j)!.endNs)));
    for (const j of [4, 5, 6, 7]) expect(Number(timing.get(j)!.arrivalNs)).toBeGreaterThanOrEqual(firstEnd);
  });

  it('staggered(15ms): arrivals keep their spacing; a busy pool makes a job wait for a worker', async () => {
    const { run } = probe(1, 40);
    const result = await runSchedule({ jobs: 5, arrival: arrivalOf('staggered(15ms)'), workers: 1, admissionCap: null, seed: 1, run });
    const byJob = [...result.jobs].sort((a, b) => a.timing.job - b.timing.job).map((j) => j.timing);
    // a libuv timer may fire up to ~1 ms before the hrtime mark (its loop clock is cached)
    for (const [i, t] of byJob.entries()) expect(Number(t.arrivalNs - result.tStartNs) / 1e6).toBeGreaterThanOrEqual(i * 15 - 2);
    // one worker, 41 ms jobs arriving every 15 ms: the later ones queue for the worker
    expect(byJob[4]!.poolWaitMs).toBeGreaterThan(20);
  });

  it('poisson(200): every job runs once, arrivals in seeded order', async () => {
    const { state, run } = probe(1, 1);
    const result = await runSchedule({ jobs: 6, arrival: arrivalOf('poisson(200)'), workers: 6, admissionCap: 2, seed: 7, run });
    expect([...state.ran].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(result.jobs).toHaveLength(6);
  });

  it('a failed or unreported start frees its slot and is recorded as a start failure', async () => {
    const result = await runSchedule({
      jobs: 3,
      arrival: arrivalOf('burst(3)'),
      workers: 3,
      admissionCap: 1,
      seed: 1,
      run: async (job, signal) => {
        await sleep(5);
        if (job === 0) signal.startFailed();
        if (job === 2) signal.started();
        await sleep(job === 0 ? 300 : 5); // job 0 keeps working after its failed start: the slot is already free
        return job;
      },
    });
    const byJob = new Map(result.jobs.map((j) => [j.timing.job, j.timing]));
    expect(byJob.get(0)!).toMatchObject({ startFailed: true, startLatencyMs: null });
    expect(byJob.get(1)!).toMatchObject({ startFailed: true, startLatencyMs: null });
    expect(byJob.get(2)!.startFailed).toBe(false);
    // job 1 was admitted when job 0's start failed (at ~5 ms), long before job 0 ended (~305 ms)
    expect(byJob.get(1)!.admissionWaitMs).toBeLessThan(150);
    expect(Number(byJob.get(1)!.admittedNs)).toBeLessThan(Number(byJob.get(0)!.endNs));
  });

  it('a job that throws stops the schedule and the error is rethrown; keepGoing stops it too', async () => {
    const ran: number[] = [];
    await expect(
      runSchedule({ jobs: 10, arrival: arrivalOf('closed'), workers: 1, admissionCap: null, seed: 1, run: async (job) => {
        ran.push(job);
        if (job === 2) throw new Error('boom');
        return job;
      } }),
    ).rejects.toThrow('boom');
    expect(ran).toEqual([0, 1, 2]);
    let taken = 0;
    const result = await runSchedule({ jobs: 10, arrival: arrivalOf('staggered(1ms)'), workers: 2, admissionCap: null, seed: 1, keepGoing: () => taken < 4, run: async (job) => (taken++, job) });
    expect(result.jobs.length).toBeLessThanOrEqual(5);
    expect(result.jobs.length).toBeGreaterThanOrEqual(4);
  });
});
