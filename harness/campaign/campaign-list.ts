/**
 * The campaign list (`sandbench reproduce --campaign`): which shipped specs reproduce the published
 * study, one entry per spec with its `--quick` overrides, as data (experiments/specs/campaign.yaml).
 * Pure: parse and validate; a bad entry is a UserError naming the file, the entry and the field.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../errors.ts';
import { PROJECT_ROOT } from '../state-dir.ts';

export const DEFAULT_CAMPAIGN_LIST = resolve(PROJECT_ROOT, 'experiments/specs/campaign.yaml');

/** The `run` overrides an entry may set: the same names and meanings as `sandbench run`'s flags. */
const OverridesSchema = z
  .object({
    arms: z.array(z.string().min(1)).min(1).optional(),
    trials: z.number().int().positive().optional(),
    warmups: z.number().int().nonnegative().optional(),
    seed: z.number().int().nonnegative().optional(),
    concurrency: z.array(z.number().int().positive()).min(1).optional(),
    batches: z.number().int().positive().optional(),
  })
  .strict();
export type CampaignOverrides = z.infer<typeof OverridesSchema>;

const ModeSchema = OverridesSchema.extend({
  /** A different spec for this mode (e.g. fewer trajectories where no override reaches the setting). */
  spec: z.string().min(1).optional(),
  /** Leave this entry out of this mode (its published rows are then "not run, with the reason"). */
  skip: z.string().min(1).optional(),
  /** Wall time measured here for this mode, seconds: the ETA before the entry has run once. */
  estimate_s: z.number().positive().optional(),
}).strict();
export type CampaignMode = z.infer<typeof ModeSchema>;

const EntrySchema = z
  .object({
    /** Bundle directory name under the campaign directory. */
    id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'lower-case letters, digits and "-" (it names the bundle directory)'),
    /** Spec path, relative to the campaign list's directory's project root (or absolute). */
    spec: z.string().min(1),
    /** Published topics this entry reproduces (says which rows are "not run" when it is skipped or fails). */
    topics: z.array(z.string().min(1)).default([]),
    quick: ModeSchema.default({}),
    full: ModeSchema.default({}),
  })
  .strict();
export type CampaignEntry = z.infer<typeof EntrySchema> & { specPath: string; specPaths: Record<CampaignModeName, string> };

const ListSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    entries: z.array(z.unknown()).min(1),
  })
  .strict();

export interface CampaignList {
  path: string;
  name: string;
  entries: CampaignEntry[];
}

export type CampaignModeName = 'quick' | 'full';

function issueText(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0]!;
  return { field: issue.path.join('.') || '(entry)', message: issue.message };
}

/** Parse a campaign list document; `file` names it in errors, spec paths resolve against `root`. */
export function parseCampaignList(file: string, document: unknown, root = PROJECT_ROOT): CampaignList {
  const top = ListSchema.safeParse(document);
  if (!top.success) {
    const { field, message } = issueText(top.error);
    throw new UserError(`${file}: ${field}: ${message} (a campaign list has name and entries: [{id, spec, topics, quick, full}])`);
  }
  const seen = new Set<string>();
  const entries = top.data.entries.map((raw, index) => {
    const label = typeof raw === 'object' && raw !== null && typeof (raw as { id?: unknown }).id === 'string' ? `entry ${index + 1} (${(raw as { id: string }).id})` : `entry ${index + 1}`;
    const parsed = EntrySchema.safeParse(raw);
    if (!parsed.success) {
      const { field, message } = issueText(parsed.error);
      throw new UserError(`${file}: ${label}: ${field}: ${message}`);
    }
    const entry = parsed.data;
    if (seen.has(entry.id)) throw new UserError(`${file}: ${label}: id: "${entry.id}" is used by an earlier entry; ids name bundle directories and must be unique`);
    seen.add(entry.id);
    const specAt = (given: string, field: string) => {
      const path = isAbsolute(given) ? given : resolve(root, given);
      if (!existsSync(path)) throw new UserError(`${file}: ${label}: ${field}: ${given} does not exist (paths are relative to ${root})`);
      return path;
    };
    const specPath = specAt(entry.spec, 'spec');
    const specPaths = {
      quick: entry.quick.spec ? specAt(entry.quick.spec, 'quick.spec') : specPath,
      full: entry.full.spec ? specAt(entry.full.spec, 'full.spec') : specPath,
    };
    return { ...entry, specPath, specPaths };
  });
  return { path: file, name: top.data.name, entries };
}

export function readCampaignList(path: string = DEFAULT_CAMPAIGN_LIST): CampaignList {
  if (!existsSync(path)) throw new UserError(`${path}: campaign list not found; pass --list <yaml> (see experiments/specs/campaign.yaml)`);
  let document: unknown;
  try {
    document = parseYaml(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${path}: not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  // Spec paths are relative to the project root when the list lives in the project, else to the list's folder.
  const root = resolve(path).startsWith(`${PROJECT_ROOT}/`) ? PROJECT_ROOT : dirname(resolve(path));
  return parseCampaignList(path, document, root);
}

/** The overrides `run` gets for an entry in a mode (skip and the estimate are the campaign's, not run's). */
export function overridesFor(entry: CampaignEntry, mode: CampaignModeName): CampaignOverrides {
  const { skip: _skip, estimate_s: _estimate, spec: _spec, ...overrides } = entry[mode];
  return overrides;
}

/** `sandbench run` flags for the overrides, in a fixed order. */
export function overrideFlags(overrides: CampaignOverrides): string[] {
  const flags: string[] = [];
  if (overrides.arms) flags.push('--arms', overrides.arms.join(','));
  if (overrides.trials !== undefined) flags.push('--trials', String(overrides.trials));
  if (overrides.warmups !== undefined) flags.push('--warmups', String(overrides.warmups));
  if (overrides.seed !== undefined) flags.push('--seed', String(overrides.seed));
  if (overrides.concurrency) flags.push('--concurrency', overrides.concurrency.join(','));
  if (overrides.batches !== undefined) flags.push('--batches', String(overrides.batches));
  return flags;
}
