/**
 * One backend through the conformance properties: probe (unavailable: reported with its reason and
 * fix, nothing run), prepare on the conformance run's task image, every property in order, teardown.
 * When the task's own output never reaches the harness (the ready property sees no REFERENCE_READY)
 * the other properties are not run: each would fail for that same reason, after its own timeout.
 */
import type { Executor, ProbeResult } from '../../harness/contracts/executor.ts';
import type { ConformanceRun } from './conformance-run.ts';
import { conformanceSubject, defaultTrialTimeoutMs, PROPERTIES, type PropertyName, type PropertyResult } from './properties.ts';

export interface BackendConformance {
  backend: string;
  probe: ProbeResult;
  /** Set when prepare() or teardown() failed (prepare: no property ran). */
  setupError: string | null;
  results: PropertyResult[];
}

export interface CheckOptions {
  /** Per-trial timeout; default by launch style (defaultTrialTimeoutMs). */
  trialTimeoutMs?: number;
  /** Only these properties (the test suite runs each as its own case); default all. */
  only?: readonly PropertyName[];
  log?: (message: string) => void;
}

/** Probe, catching a crash as "unavailable" (a plugin module's probe may throw). */
export async function probeBackend(executor: Executor): Promise<ProbeResult> {
  return executor.probe().catch((error: unknown) => ({ backend: executor.backend, available: false, version: null, details: {}, reason: `probe crashed: ${error instanceof Error ? error.message : String(error)}` }));
}

/** Run the properties on an executor already prepared on `run` (the caller tears it down). */
export async function runProperties(executor: Executor, probe: ProbeResult, run: ConformanceRun, options: CheckOptions = {}): Promise<PropertyResult[]> {
  const subject = conformanceSubject(executor, probe, run, options.trialTimeoutMs ?? defaultTrialTimeoutMs(executor));
  const results: PropertyResult[] = [];
  let gate: string | null = null;
  for (const { name, check } of PROPERTIES) {
    if (options.only && !options.only.includes(name)) continue;
    if (gate) {
      results.push({ property: name, status: 'fail', reason: `not checked: ${gate}`, ms: 0 });
      continue;
    }
    options.log?.(`conformance: ${executor.backend}: ${name}`);
    const result = await check(subject);
    results.push(result);
    // Only when the task's output never arrived: a ready property failed on stdin or the exit code leaves the others meaningful.
    if (name === 'ready-and-exit' && result.status === 'fail' && subject.observed.taskSpoke !== true) gate = 'ready-and-exit saw no REFERENCE_READY, so no task output reaches the harness';
  }
  return results;
}

/** Probe, prepare, every property, teardown. Never throws for the backend's own failures: they are in the result. */
export async function checkBackend(executor: Executor, run: ConformanceRun, options: CheckOptions = {}): Promise<BackendConformance> {
  const probe = await probeBackend(executor);
  if (!probe.available) return { backend: executor.backend, probe, setupError: null, results: [] };
  let setupError: string | null = null;
  let results: PropertyResult[] = [];
  try {
    options.log?.(`conformance: ${executor.backend}: prepare`);
    try {
      await executor.prepare(run.context);
    } catch (error) {
      setupError = `prepare failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (setupError === null) results = await runProperties(executor, probe, run, options);
  } finally {
    try {
      await executor.teardown();
    } catch (error) {
      setupError ??= `teardown failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  return { backend: executor.backend, probe, setupError, results };
}

/** Did everything that ran pass? (not-applicable counts as passing; an unavailable backend is neither.) */
export function conforms(report: BackendConformance): boolean {
  return report.setupError === null && report.results.every((result) => result.status !== 'fail');
}
