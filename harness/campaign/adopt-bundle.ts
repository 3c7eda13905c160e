/**
 * Adopting a bundle recorded outside the campaign (a full-protocol run done earlier on its own) as a
 * campaign entry's bundle: `reproduce --campaign DIR --adopt ENTRY=BUNDLE`. Refused, naming the
 * entry, the bundle and the fix, unless the entry runs in this mode, DIR has no bundle for it yet, the
 * bundle is complete, a clean checkout recorded it, it verifies exactly as `sandbench verify` verifies, and its resolved spec is
 * the one `run` would resolve for the entry in this mode. Then the bundle is copied (the source is
 * never touched) to DIR/<entry> and the adoption is recorded in campaign.json; the campaign skips the
 * entry as finished and the join treats the copy like any bundle.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { parseResolvedSpec } from '../bundle/schemas.ts';
import { readJournal } from '../journal/journal.ts';
import { readManifest, verifyBundle, type Manifest } from '../provenance/manifest.ts';
import { bundleExists } from '../run/bundle-dir.ts';
import { resolveGivenSpec } from '../spec/given-spec.ts';
import { pruneComparisons } from '../spec/resolve-spec.ts';
import type { SpecKinds } from '../spec/kind-spec.ts';
import type { Spec } from '../spec/schema.ts';
import { overrideFlags, overridesFor, type CampaignEntry, type CampaignList, type CampaignModeName } from './campaign-list.ts';
import { bundleDirOf, openCampaignState, writeCampaignState, type Adoption } from './campaign-state.ts';

export interface AdoptRequest {
  entryId: string;
  /** The bundle directory as given. */
  source: string;
}

export interface AdoptOptions {
  campaignDir: string;
  list: CampaignList;
  mode: CampaignModeName;
  /** The spec kinds catalog `run` loads specs with (cli/wiring: SPEC_KINDS). */
  kinds: SpecKinds;
  /** The arm labels the kind's plan schedules for a spec, so comparisons are pruned as `run` prunes them. */
  planArms: (spec: Spec) => string[];
  now?: () => Date;
}

/** `--adopt ENTRY=BUNDLE`. */
export function parseAdoptFlag(value: string): AdoptRequest {
  const at = value.indexOf('=');
  if (at <= 0 || at === value.length - 1) throw new UserError(`--adopt ${value}: expected ENTRY=BUNDLE, e.g. --adopt density-vm=/var/tmp/runs/density-vm`);
  return { entryId: value.slice(0, at), source: value.slice(at + 1) };
}

/**
 * Top-level fields of resolved-spec.json that legitimately differ between two runs of the same spec;
 * everything else (the whole `spec`, but its description) must be equal.
 * - run_id: every run has its own.
 * - spec_path: the path the spec was given by (relative in a standalone run, absolute in a campaign).
 * - spec_sha256: the spec file's bytes (a comment or reformatting changes it); `spec` below is what steers the run.
 * - overrides: how values were given (flag or file); their effect is in `spec`.
 * - plan_arms: derived from `spec` by the kind's plan.
 * - spec.description: free text that never steers a run.
 * skipped_arms is not ignored: a bundle that ran without an arm is refused (checked before the spec).
 * Arm build paths are compared as recorded (absolute): a build elsewhere is a different build.
 */
const IGNORED_SPEC_FIELDS = ['description'] as const;

const shown = (value: unknown) => {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

/** The first path at which two JSON values differ (keys in the expected value's order, then the bundle's), or null. */
export function firstDifference(expected: unknown, actual: unknown, path: string): { path: string; expected: unknown; actual: unknown } | null {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i += 1) {
      const d = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(expected) && isObject(actual)) {
    for (const key of [...new Set([...Object.keys(expected), ...Object.keys(actual)])]) {
      const d = firstDifference(expected[key], actual[key], `${path}.${key}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : { path, expected, actual };
}

/** JSON as resolved-spec.json stores it (undefined fields dropped), without the fields that may differ. */
function comparable(spec: unknown): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(spec)) as Record<string, unknown>;
  for (const field of IGNORED_SPEC_FIELDS) delete copy[field];
  return copy;
}

const modeName = (mode: CampaignModeName) => (mode === 'quick' ? '--quick' : 'the full campaign');

interface Checked {
  entry: CampaignEntry;
  source: string;
  target: string;
  manifest: Manifest;
  manifestSha256: string;
}

/** Every refusal of one --adopt, before anything is copied. */
function checkAdoption(request: AdoptRequest, options: AdoptOptions): Checked {
  const { list, mode } = options;
  const flag = `--adopt ${request.entryId}=${request.source}`;
  const entry = list.entries.find((e) => e.id === request.entryId);
  if (!entry) throw new UserError(`${flag}: ${list.path} has no entry ${request.entryId} (entries: ${list.entries.map((e) => e.id).join(', ')}); use one of those ids`);
  if (entry[mode].skip) throw new UserError(`${flag}: entry ${entry.id} is skipped in ${modeName(mode)} (${entry[mode].skip}), so there is nothing to adopt it as; drop this --adopt${mode === 'quick' ? ' or adopt into a full campaign (no --quick)' : ''}`);
  const target = bundleDirOf(options.campaignDir, entry);
  if (existsSync(target)) throw new UserError(`${flag}: ${target} already exists (the campaign's bundle for ${entry.id}); drop this --adopt, or move that directory away first to replace it`);
  const source = resolve(request.source);
  if (!existsSync(source)) throw new UserError(`${flag}: ${source}: no such directory; give a bundle directory (runs/<run-id>)`);
  if (!bundleExists(source) || !existsSync(join(source, BUNDLE_FILES.manifest))) {
    throw new UserError(`${flag}: ${source} is not a finished sandbench bundle (needs plan.json, resolved-spec.json and manifest.json); give the directory a finished \`sandbench run\` printed`);
  }
  let manifest: Manifest;
  try {
    manifest = readManifest(source);
  } catch (error) {
    throw new UserError(`${flag}: ${join(source, BUNDLE_FILES.manifest)} is not a bundle manifest (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); adopt an intact bundle`);
  }
  const plan = JSON.parse(readFileSync(join(source, BUNDLE_FILES.plan), 'utf8')) as { trials?: unknown[]; shard?: { index: number; count: number } };
  if (!manifest.complete) {
    const recorded = readJournal(join(source, BUNDLE_FILES.journal)).records.length;
    throw new UserError(`${flag}: the bundle is incomplete (manifest.json complete: false; ${recorded} of ${plan.trials?.length ?? 0} planned trials recorded); finish it with \`sandbench run --resume ${source}\` first, or let the campaign run ${entry.id}`);
  }
  refuseDirtyHarness(flag, entry, source, manifest);
  // A shard holds only some blocks of its plan; its resolved spec alone would not show that.
  if (plan.shard) throw new UserError(`${flag}: the bundle is shard ${plan.shard.index}/${plan.shard.count} of a plan (run --shard); merge its shards with \`sandbench merge\` and adopt the merged bundle`);
  // The same check `sandbench verify` makes: every file re-hashed against the manifest.
  const problems = verifyBundle(source);
  if (problems.length > 0) {
    throw new UserError(`${flag}: the bundle fails verification (${problems.map((p) => `${p.file}: ${p.problem}`).join('; ')}), so its files are not the ones its run wrote; adopt an intact copy or let the campaign run ${entry.id}`);
  }
  checkSameSpec(flag, entry, source, options);
  const manifestSha256 = createHash('sha256').update(readFileSync(join(source, BUNDLE_FILES.manifest))).digest('hex');
  return { entry, source, target, manifest, manifestSha256 };
}

/**
 * A bundle any of whose trials a checkout with uncommitted changes recorded is refused: no commit
 * holds the code behind its figures, so the campaign could not say what measured them. (null, outside
 * git, is unknown rather than dirty, and is adopted.) Older bundles name one revision, newer ones
 * every revision that wrote trials (`harness_commits`).
 */
function refuseDirtyHarness(flag: string, entry: CampaignEntry, _source: string, manifest: Manifest): void {
  const revisions = manifest.harness_commits ?? [{ commit: manifest.harness_commit, dirty: manifest.harness_dirty }];
  const dirty = revisions.find((r) => r.dirty === true);
  if (!dirty) return;
  throw new UserError(`${flag}: the bundle was recorded by a harness checkout with uncommitted changes (harness ${dirty.commit?.slice(0, 12) ?? 'unknown'}, dirty), so no commit holds the code behind its figures; commit or stash the changes and re-run it, or let the campaign run ${entry.id}`);
}

/** The bundle's resolved spec must be what `run` resolves for the entry's spec with this mode's overrides. */
function checkSameSpec(flag: string, entry: CampaignEntry, source: string, options: AdoptOptions): void {
  const file = join(source, BUNDLE_FILES.resolvedSpec);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const recorded = parseResolvedSpec(raw, file);
  const specPath = entry.specPaths[options.mode];
  const overrides = overridesFor(entry, options.mode);
  const command = `sandbench run ${specPath} ${overrideFlags(overrides).join(' ')}`.trim();
  if (recorded.skipped_arms.length > 0) {
    const s = recorded.skipped_arms[0]!;
    throw new UserError(`${flag}: the bundle ran without arm ${s.arm} (skipped as unavailable: ${s.reason}), which entry ${entry.id} runs; adopt a bundle that ran every arm (\`${command}\`), or let the campaign run ${entry.id}`);
  }
  // `run`'s own resolution, then the comparisons `run` prunes for arms its plan does not schedule.
  const given = resolveGivenSpec(specPath, overrides, options.kinds).spec;
  const expected = pruneComparisons(given, options.planArms(given)).spec;
  const d = firstDifference(comparable(expected), comparable((raw as { spec: unknown }).spec), 'spec');
  if (d) {
    throw new UserError(`${flag}: the bundle's resolved spec is not what entry ${entry.id} runs in ${modeName(options.mode)}: ${d.path} is ${shown(d.actual)} in the bundle, ${shown(d.expected)} for the entry (\`${command}\`); adopt a bundle run that way, or let the campaign run ${entry.id}`);
  }
}

export interface AdoptedEntry {
  entry: string;
  adoption: Adoption;
}

/**
 * Check every request, then copy each bundle into the campaign directory and record it. All are
 * checked before any is copied, so a refused --adopt leaves the directory as it was.
 */
export function adoptBundles(requests: readonly AdoptRequest[], options: AdoptOptions): AdoptedEntry[] {
  const seen = new Set<string>();
  for (const r of requests) {
    if (seen.has(r.entryId)) throw new UserError(`--adopt ${r.entryId}=...: entry ${r.entryId} is adopted twice; give one bundle per entry`);
    seen.add(r.entryId);
  }
  const checked = requests.map((r) => checkAdoption(r, options));
  if (checked.length === 0) return [];
  // Same rules as a campaign run: a new or empty directory, or one holding this mode's campaign.
  const state = openCampaignState(options.campaignDir, options.mode, options.list);
  mkdirSync(options.campaignDir, { recursive: true });
  writeCampaignState(options.campaignDir, state);
  const adopted: AdoptedEntry[] = [];
  for (const c of checked) {
    // Copy beside the target and rename, so an interrupted copy never looks like a started bundle.
    const staging = join(options.campaignDir, `.adopting-${c.entry.id}`);
    rmSync(staging, { recursive: true, force: true });
    cpSync(c.source, staging, { recursive: true, preserveTimestamps: true, errorOnExist: true, force: false });
    const copyProblems = verifyBundle(staging);
    if (copyProblems.length > 0) {
      rmSync(staging, { recursive: true, force: true });
      throw new UserError(`--adopt ${c.entry.id}=${c.source}: the copy in ${options.campaignDir} does not verify (${copyProblems.map((p) => `${p.file}: ${p.problem}`).join('; ')}); check the disk and retry`);
    }
    renameSync(staging, c.target);
    const at = (options.now ?? (() => new Date()))().toISOString();
    const adoption: Adoption = { source: c.source, run_id: c.manifest.run_id, manifest_sha256: c.manifestSha256, harness_commit: c.manifest.harness_commit, harness_dirty: c.manifest.harness_dirty, adopted_at: at };
    state.entries[c.entry.id] = { status: 'adopted', exit_code: null, seconds: 0, reason: `adopted from ${c.source}`, finished_at: at, adopted: adoption };
    writeCampaignState(options.campaignDir, state);
    adopted.push({ entry: c.entry.id, adoption });
  }
  return adopted;
}
