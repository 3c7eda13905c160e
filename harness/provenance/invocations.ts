/**
 * invocations.jsonl: one line per `sandbench run` that wrote to a bundle — the first and every
 * `--resume` — with the harness commit it ran. Why: a bundle paused under one commit and resumed
 * under another (a campaign spanning sessions) holds trials of both, and the manifest's
 * `harness_commit` names only the run that finalized it; `harness_commits` lists every one, in order.
 * The line is written before the first trial of the invocation and fsynced, so a run killed with -9
 * keeps it too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { appendLineDurably } from '../bundle/durable-append.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import type { HarnessRevision } from './host-facts.ts';

export const InvocationSchema = z.object({
  started_at: z.string(),
  resumed: z.boolean(),
  harness_commit: z.string().nullable(),
  harness_dirty: z.boolean().nullable(),
  node: z.string(),
});
export type Invocation = z.infer<typeof InvocationSchema>;

export const HarnessCommitSchema = z.object({ commit: z.string().nullable(), dirty: z.boolean().nullable() });
export type HarnessCommit = z.infer<typeof HarnessCommitSchema>;

export function recordInvocation(bundleDir: string, revision: HarnessRevision, resumed: boolean, now = new Date()): void {
  const line: Invocation = { started_at: now.toISOString(), resumed, harness_commit: revision.commit, harness_dirty: revision.dirty, node: process.version };
  appendLineDurably(join(bundleDir, BUNDLE_FILES.invocations), line);
}

/** The bundle's invocations, oldest first; [] for a bundle written before the file existed. A torn last line (a kill mid-write) is left out. */
export function readInvocations(bundleDir: string): Invocation[] {
  const path = join(bundleDir, BUNDLE_FILES.invocations);
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '');
  return lines.flatMap((line, index) => {
    try {
      return [InvocationSchema.parse(JSON.parse(line))];
    } catch (error) {
      if (index === lines.length - 1) return [];
      throw new Error(`${path}: line ${index + 1} is not an invocation record (${error instanceof Error ? error.message : error})`);
    }
  });
}

/** Each revision once, in the order it first appears (a bundle's invocations, shards' lists, the finalizing run). */
export function distinctRevisions(revisions: readonly HarnessCommit[]): HarnessCommit[] {
  const seen = new Set<string>();
  return revisions.filter((revision) => {
    const key = `${revision.commit}\0${revision.dirty}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The harness revisions of a bundle's invocations, oldest first (repeats included). */
export function invocationRevisions(bundleDir: string): HarnessCommit[] {
  return readInvocations(bundleDir).map((invocation) => ({ commit: invocation.harness_commit, dirty: invocation.harness_dirty }));
}
