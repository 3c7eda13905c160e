/**
 * `sandbench conformance --json`: one document, every backend checked with its probe and every
 * property's verdict (the same results the text lines print). Scripts parse it with this schema.
 */
import { z } from 'zod';
import type { BackendConformance } from './check-backend.ts';
import { conforms } from './check-backend.ts';
import { PROPERTY_NAMES } from './properties.ts';

export const CONFORMANCE_JSON_SCHEMA_VERSION = 1;

export const ConformanceJsonSchema = z.object({
  schema_version: z.literal(CONFORMANCE_JSON_SCHEMA_VERSION),
  command: z.literal('conformance'),
  run_id: z.string(),
  /** Every property that ran passed (or was not applicable), and every backend asked for by name was available. */
  passed: z.boolean(),
  backends: z.array(
    z.object({
      backend: z.string(),
      available: z.boolean(),
      version: z.string().nullable(),
      reason: z.string().optional(),
      fix: z.string().optional(),
      /** prepare() or teardown() failed: the message. */
      setup_error: z.string().nullable(),
      passed: z.boolean(),
      results: z.array(z.object({ property: z.enum(PROPERTY_NAMES), status: z.enum(['pass', 'fail', 'not-applicable']), reason: z.string(), ms: z.number() })),
    }),
  ),
});
export type ConformanceJson = z.infer<typeof ConformanceJsonSchema>;

export function conformanceJson(runId: string, reports: readonly BackendConformance[], passed: boolean): ConformanceJson {
  return {
    schema_version: CONFORMANCE_JSON_SCHEMA_VERSION,
    command: 'conformance',
    run_id: runId,
    passed,
    backends: reports.map((report) => ({
      backend: report.backend,
      available: report.probe.available,
      version: report.probe.version,
      ...(report.probe.reason ? { reason: report.probe.reason } : {}),
      ...(report.probe.fix ? { fix: report.probe.fix } : {}),
      setup_error: report.setupError,
      passed: report.probe.available && conforms(report),
      results: report.results,
    })),
  };
}
