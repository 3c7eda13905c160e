/** Reading one shard bundle for `merge`: every file merge relies on, checked at the edge. */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { readBundle, type Bundle } from '../bundle/read.ts';
import type { TrialRecord } from '../journal/trial-record.ts';
import type { ResolvedSpec } from '../bundle/schemas.ts';
import { readManifest, verifyBundle, type Manifest } from '../provenance/manifest.ts';
import type { ShardedPlan } from './shard-plan.ts';

/** Exit code of a refused merge (harness/errors.ts: 3 = refused / invalid data). */
export const MERGE_REFUSED = 3;

const ShardRecordSchema = z.object({
  index: z.number().int().nonnegative(),
  count: z.number().int().positive(),
  parent_plan_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  host: z.object({ hostname: z.string(), machine_id: z.string().nullable(), node_name: z.string().nullable() }),
});

export interface ShardBundle {
  dir: string;
  plan: ShardedPlan;
  resolved: ResolvedSpec;
  records: TrialRecord[];
  manifest: Manifest;
  /** File name → raw text, copied into the merged bundle under shards/<index>/. */
  provenance: Map<string, string>;
  specText: string;
}

function refuse(message: string): never {
  throw new UserError(message, MERGE_REFUSED);
}

export function readShardBundle(given: string): ShardBundle {
  const dir = resolve(given);
  if (!existsSync(dir)) throw new UserError(`${given}: no such bundle directory`);
  let manifest: Manifest;
  try {
    manifest = readManifest(dir);
  } catch (error) {
    return refuse(`${given}: ${error instanceof Error ? error.message : error} — finish the shard (sandbench run --resume ${given}) before merging`);
  }
  const problems = verifyBundle(dir);
  if (problems.length > 0) refuse(`${given}: fails verify (${problems.map((p) => `${p.file} ${p.problem}`).join(', ')}); merge only untouched shard bundles`);
  // The one bundle reader parses resolved spec, plan and journal; merge is stricter about what it accepts.
  let bundle: Bundle;
  try {
    bundle = readBundle(dir);
  } catch (error) {
    return refuse(`${given}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!bundle.plan) refuse(`${given}: plan.json is missing or damaged; not a finished sandbench bundle`);
  const shard = ShardRecordSchema.safeParse(bundle.plan.shard);
  if (bundle.plan.shard === undefined) refuse(`${given}: plan.json has no shard record — not a shard bundle (run it with sandbench run <spec> --shard i/N)`);
  if (!shard.success) refuse(`${given}/plan.json: shard.${shard.error.issues[0]!.path.join('.')}: ${shard.error.issues[0]!.message}`);
  if (bundle.journalWarning) refuse(`${given}: journal.jsonl has a torn last line (${bundle.journalWarning}); resume the shard first`);
  const provenance = new Map<string, string>();
  // The shard's signature too: the merged bundle keeps it beside the shard's manifest (shards/<i>/).
  for (const file of [BUNDLE_FILES.plan, BUNDLE_FILES.environment, BUNDLE_FILES.manifest, BUNDLE_FILES.signature, BUNDLE_FILES.invocations]) {
    const path = join(dir, file);
    if (existsSync(path)) provenance.set(file, readFileSync(path, 'utf8'));
  }
  return {
    dir: given,
    // plan.json as written, not the reader's parsed copy: zod's output reorders keys, and the parent
    // plan digest is over the shards' trials exactly as recorded.
    plan: JSON.parse(provenance.get(BUNDLE_FILES.plan)!) as ShardedPlan,
    resolved: bundle.resolved,
    records: bundle.journal,
    manifest,
    provenance,
    specText: readFileSync(join(dir, BUNDLE_FILES.spec), 'utf8'),
  };
}
