/** Reading one shard bundle for `merge`: every file merge relies on, checked at the edge. */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { readJournal } from '../journal/journal.ts';
import type { TrialRecord } from '../journal/trial-record.ts';
import { parseResolvedSpec, type ResolvedSpec } from '../bundle/schemas.ts';
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

const PlanSchema = z
  .object({
    trials: z.array(z.object({ trial_id: z.string(), block: z.number().int().nonnegative(), position: z.number().int().nonnegative(), warmup: z.boolean() }).loose()),
    shard: ShardRecordSchema.optional(),
  })
  .loose();

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

function readJson(dir: string, file: string): unknown {
  const path = join(dir, file);
  if (!existsSync(path)) refuse(`${dir}: ${file} is missing; not a finished sandbench bundle`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return refuse(`${path}: not valid JSON (${error instanceof Error ? error.message : error})`);
  }
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
  const planRaw = readJson(dir, BUNDLE_FILES.plan);
  // Validate only: zod's output reorders keys, and the parent digest is over the plan's exact bytes.
  const planJson = PlanSchema.safeParse(planRaw);
  if (!planJson.success) refuse(`${given}/plan.json: ${planJson.error.issues[0]!.path.join('.')}: ${planJson.error.issues[0]!.message}`);
  if (!planJson.data.shard) refuse(`${given}: plan.json has no shard record — not a shard bundle (run it with sandbench run <spec> --shard i/N)`);
  let resolved: ResolvedSpec;
  try {
    resolved = parseResolvedSpec(readJson(dir, BUNDLE_FILES.resolvedSpec), `${given}/resolved-spec.json`);
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  const journal = readJournal(join(dir, BUNDLE_FILES.journal));
  if (journal.tornTail) refuse(`${given}: journal.jsonl has a torn last line (${journal.tornTail}); resume the shard first`);
  const provenance = new Map<string, string>();
  for (const file of [BUNDLE_FILES.plan, BUNDLE_FILES.environment, BUNDLE_FILES.manifest]) {
    const path = join(dir, file);
    if (existsSync(path)) provenance.set(file, readFileSync(path, 'utf8'));
  }
  return {
    dir: given,
    plan: planRaw as ShardedPlan,
    resolved,
    records: journal.records,
    manifest,
    provenance,
    specText: readFileSync(join(dir, BUNDLE_FILES.spec), 'utf8'),
  };
}
