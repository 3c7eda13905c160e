/**
 * A campaign directory: one bundle per campaign entry (`<dir>/<entry id>/`) and `campaign.json`,
 * the record of the mode, the list and each entry's last attempt. Resuming is per bundle: a
 * finished bundle is skipped, a started one continues with `run --resume`, a bundle killed before
 * its plan was written (nothing recorded) starts again. Pure apart from reading/writing that directory.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { bundleExists } from '../run/bundle-dir.ts';
import type { CampaignEntry, CampaignModeName } from './campaign-list.ts';

export const CAMPAIGN_FILE = 'campaign.json';
export const CAMPAIGN_FILES = {
  state: CAMPAIGN_FILE,
  summary: 'campaign-summary.csv',
  orderings: 'campaign-orderings.csv',
  report: 'report.md',
  logs: 'logs',
} as const;

/** Where an adopted bundle came from (`reproduce --campaign DIR --adopt ENTRY=BUNDLE`, adopt-bundle.ts). */
const AdoptionSchema = z.object({
  /** The bundle copied into DIR/<entry> (absolute; never modified). */
  source: z.string().min(1),
  run_id: z.string().min(1),
  /** sha256 of the source's manifest.json, which itself hashes every other file of the bundle. */
  manifest_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  harness_commit: z.string().nullable(),
  harness_dirty: z.boolean().nullable(),
  adopted_at: z.string(),
});
export type Adoption = z.infer<typeof AdoptionSchema>;

const AttemptSchema = z
  .object({
    status: z.enum(['done', 'done-with-empty-arms', 'failed', 'interrupted', 'skipped', 'adopted']),
    exit_code: z.number().int().nullable(),
    seconds: z.number().nonnegative(),
    reason: z.string().default(''),
    finished_at: z.string(),
    adopted: AdoptionSchema.optional(),
  })
  // An adopted entry always says where from, and only an adopted entry does.
  .refine((a) => (a.status === 'adopted') === (a.adopted !== undefined), { message: 'status adopted and the adopted record go together', path: ['adopted'] });
export type EntryAttempt = z.infer<typeof AttemptSchema>;

const StateSchema = z.object({
  schema_version: z.literal(1),
  mode: z.enum(['quick', 'full']),
  list: z.string(),
  list_name: z.string(),
  created_at: z.string(),
  entries: z.record(z.string(), AttemptSchema).default({}),
});
export type CampaignState = z.infer<typeof StateSchema>;

export function readCampaignState(dir: string): CampaignState | null {
  const path = join(dir, CAMPAIGN_FILE);
  if (!existsSync(path)) return null;
  const parsed = StateSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new UserError(`${path}: not a campaign record (${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}); give a new --campaign directory`);
  return parsed.data;
}

export function writeCampaignState(dir: string, state: CampaignState): void {
  writeFileSync(join(dir, CAMPAIGN_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * The campaign record for this invocation: new, or the existing one when the mode matches (a quick
 * and a full campaign must not share bundles: their N differ, so their figures would mix).
 */
export function openCampaignState(dir: string, mode: CampaignModeName, list: { path: string; name: string }, now = new Date()): CampaignState {
  const existing = readCampaignState(dir);
  if (existing) {
    if (existing.mode !== mode) {
      throw new UserError(`--campaign ${dir}: this directory holds a ${existing.mode} campaign; ${mode === 'quick' ? 'add --quick' : 'drop --quick'} to continue it, or give a new directory`);
    }
    return existing;
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new UserError(`--campaign ${dir}: the directory is not empty and holds no ${CAMPAIGN_FILE}; give a new or empty directory`);
  }
  return { schema_version: 1, mode, list: list.path, list_name: list.name, created_at: now.toISOString(), entries: {} };
}

export type BundleStatus = 'finished' | 'resume' | 'fresh';

function manifestComplete(bundleDir: string): boolean {
  const path = join(bundleDir, BUNDLE_FILES.manifest);
  if (!existsSync(path)) return false;
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { complete?: unknown }).complete === true;
  } catch {
    return false;
  }
}

/**
 * What to do with an entry's bundle. A directory left by a run stopped before its plan was written
 * holds no trial (no journal): it is removed and the entry starts again.
 */
export function bundleStatus(bundleDir: string): BundleStatus {
  if (!existsSync(bundleDir)) return 'fresh';
  if (bundleExists(bundleDir)) return manifestComplete(bundleDir) ? 'finished' : 'resume';
  if (existsSync(join(bundleDir, BUNDLE_FILES.journal))) {
    throw new UserError(`${bundleDir}: has a journal but no plan.json/resolved-spec.json, so it cannot be resumed; move it away and re-run the campaign`);
  }
  rmSync(bundleDir, { recursive: true, force: true });
  return 'fresh';
}

export function bundleDirOf(campaignDir: string, entry: Pick<CampaignEntry, 'id'>): string {
  return join(campaignDir, entry.id);
}

/**
 * Campaign ETA, seconds: the running entry's own remaining estimate (from its per-trial progress, if
 * known) plus every pending entry's estimate, scaled by how this machine has done against the
 * estimates so far (actual / estimated over the entries run in this invocation; 1 before any).
 */
export function campaignEta(options: { pendingEstimates: number[]; currentRemaining: number | null; finished: { actual: number; estimate: number }[] }): number {
  const estimated = options.finished.reduce((sum, f) => sum + f.estimate, 0);
  const actual = options.finished.reduce((sum, f) => sum + f.actual, 0);
  const scale = estimated > 0 ? actual / estimated : 1;
  return (options.currentRemaining ?? 0) + options.pendingEstimates.reduce((sum, e) => sum + e, 0) * scale;
}
