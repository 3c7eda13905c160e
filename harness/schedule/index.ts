/**
 * harness/schedule: when jobs arrive and how many may be starting at once (issue 31, item 2). Used
 * by the rollout kind's cells and open to any kind that runs a pool of sandbox jobs:
 *
 *   const result = await runSchedule({ jobs: 64, arrival: arrivalOf('burst(64)'), workers: 64,
 *     admissionCap: 8, seed, run: async (job, signal) => { …; signal.started(line.tNs); …; return outcome } });
 *   result.jobs[i].timing  // arrival, pool wait, admission wait, start latency, start failed
 *   result.starts          // peak and time-weighted mean of starts in flight
 *
 * Spec fields: ArrivalTextSchema (`closed`, `burst(N)`, `staggered(Δ)`, `poisson(λ)`) and
 * AdmissionCapSchema (a number or `none`); labels safe in trial ids: arrivalLabel, capLabel.
 *
 * loopTurns (loop-turns.ts): the process's turns on the event loop. A job takes one before a
 * synchronous step that a whole wave of jobs reaches at once, so the loop's timers and I/O run
 * between slices of the wave instead of after all of it.
 */
export { parseArrival, arrivalOf, arrivalToText, arrivalLabel, fixedArrivalOffsetsMs, ArrivalTextSchema, ARRIVAL_SYNTAX, type Arrival } from './arrival.ts';
export { AdmissionGate, AdmissionCapSchema, capOf, capLabel, type AdmissionTicket, type AdmissionCapText, type Occupancy } from './admission.ts';
export { LoopTurns, loopTurns } from './loop-turns.ts';
export { runSchedule, type ScheduleOptions, type ScheduleResult, type ScheduledJob, type JobTiming, type StartSignal } from './run-schedule.ts';
