/**
 * `reproduce --campaign DIR --adopt ENTRY=BUNDLE` on a bundle from a real one-arm host run: a matching
 * bundle is copied (source untouched), recorded as adopted, skipped by the campaign and named in the
 * report; a different spec (naming the field), an incomplete bundle, a dirty-checkout one, a tampered
 * one (the verify check) and an unknown or skipped entry are refused without touching the campaign directory.
 */
import { appendFileSync, cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { adoptBundles, firstDifference, parseAdoptFlag, type AdoptOptions } from '../../harness/campaign/adopt-bundle.ts';
import { parseCampaignList } from '../../harness/campaign/campaign-list.ts';
import { readCampaignState } from '../../harness/campaign/campaign-state.ts';
import { verifyBundle } from '../../harness/provenance/manifest.ts';
import { armLabel } from '../../harness/journal/trial-record.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { EXPERIMENTS, SPEC_KINDS } from '../../experiments/registry.ts';
import { runCampaign, runSandbenchChild, type RunChild } from '../../cli/campaign/run-campaign.ts';
import { runCli } from '../reports/run-cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('sandbench-campaign-adopt-');
const spec = join(root, 'host-two.yaml');
const source = join(root, 'standalone');
const planArms = (s: Spec) => EXPERIMENTS[s.experiment]!.plan(s).arms.map(armLabel);

const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
/** Every file of a directory with its sha256 (and mtime, to show the source was never rewritten). */
function snapshot(dir: string, withTimes = true): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, withTimes ? `${sha(join(dir, f))}@${statSync(join(dir, f)).mtimeMs}` : sha(join(dir, f))]));
}

function options(entries: unknown[], campaignDir: string, mode: 'quick' | 'full' = 'full'): AdoptOptions {
  return { campaignDir, list: parseCampaignList('list.yaml', { name: 't', entries }), mode, kinds: SPEC_KINDS, planArms };
}

const copyOf = (name: string) => {
  const dir = join(root, name);
  cpSync(source, dir, { recursive: true });
  return dir;
};

beforeAll(async () => {
  writeFileSync(spec, 'name: host-two\nexperiment: shell-ready\narms:\n  - backend: host\nwarmups: 0\ntrials: 2\nseed: 7\ntimeout: 30s\n');
  const run = await runSandbenchChild(['run', spec, '--out', source], join(root, 'run.log'), () => undefined, source);
  expect(run.exitCode, readFileSync(join(root, 'run.log'), 'utf8')).toBe(0);
  // Run from a checkout with uncommitted edits (a developer's), the bundle is recorded dirty, which
  // --adopt refuses; these tests are about the rest, so the source says clean (verify hashes every
  // file but the manifest itself). The dirty refusal has its own test below.
  const manifest = JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8'));
  const clean = (m: { harness_commits?: { commit: string | null; dirty: boolean | null }[] }) => ({ ...m, harness_dirty: false, harness_commits: m.harness_commits?.map((r) => ({ ...r, dirty: false })) });
  writeFileSync(join(source, 'manifest.json'), `${JSON.stringify(clean(manifest), null, 2)}\n`);
}, 120_000);
// Removed when this file ends, pass or fail (the suite's temp guard checks).

describe('campaign --adopt', () => {
  it('copies a matching bundle, records it, skips it in the campaign and names it in the report', async () => {
    const before = snapshot(source);
    const campaign = join(root, 'campaign-ok');
    const entries = [{ id: 'shell', spec, topics: ['prepared_shell_ready'] }, { id: 'other', spec, full: { skip: 'not in this test' } }];
    const [adopted] = adoptBundles([parseAdoptFlag(`shell=${source}`)], options(entries, campaign));
    expect(snapshot(source)).toEqual(before);
    expect(verifyBundle(join(campaign, 'shell'))).toEqual([]);
    expect(snapshot(join(campaign, 'shell'), false)).toEqual(snapshot(source, false));
    const state = readCampaignState(campaign)!;
    expect(state.entries.shell).toMatchObject({ status: 'adopted', exit_code: null, adopted: { source, run_id: adopted!.adoption.run_id } });
    expect(state.entries.shell!.adopted!.manifest_sha256).toBe(sha(join(source, 'manifest.json')));
    expect(state.entries.shell!.adopted!.harness_commit).toBe(JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8')).harness_commit);

    // The campaign treats it as finished: no child runs.
    const neverRun: RunChild = () => Promise.reject(new Error('the adopted entry must not run'));
    const result = await runCampaign({ campaignDir: campaign, list: options(entries, campaign).list, mode: 'full', log: () => undefined, runChild: neverRun });
    expect(result.skippedFinished).toEqual(['shell']);
    expect(result.state.entries.shell!.status).toBe('adopted');

    // A second --adopt for the same entry is refused: the directory already holds its bundle.
    expect(() => adoptBundles([{ entryId: 'shell', source }], options(entries, campaign))).toThrow(/campaign-ok\/shell already exists .*drop this --adopt/);
  });

  it('adopts from the CLI and the campaign report says from where', async () => {
    const campaign = join(root, 'campaign-cli');
    const list = join(root, 'list.yaml');
    writeFileSync(list, `name: t\nentries:\n  - { id: shell, spec: ${spec}, topics: [prepared_shell_ready] }\n`);
    const cli = await runCli(['reproduce', '--campaign', campaign, '--list', list, '--no-run', '--adopt', `shell=${source}`]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(new RegExp(`shell: adopted ${source} \\(run \\S+-host-two-`));
    const report = readFileSync(join(campaign, 'report.md'), 'utf8');
    expect(report).toContain(`adopted from ${source} (harness `);
    expect(report).toMatch(/Adopted bundles .*: shell from /);
    const bad = await runCli(['reproduce', source, '--adopt', `shell=${source}`]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--adopt needs --campaign/);
  });

  it('refuses a bundle whose resolved spec differs, naming the field and both values', () => {
    const campaign = join(root, 'campaign-spec');
    const entries = [{ id: 'shell', spec, full: { trials: 3 } }];
    expect(() => adoptBundles([{ entryId: 'shell', source }], options(entries, campaign))).toThrow(
      new RegExp(`--adopt shell=${source}: the bundle's resolved spec is not what entry shell runs in the full campaign: spec\\.trials is 2 in the bundle, 3 for the entry \\(\`sandbench run ${spec} --trials 3\`\\)`),
    );
    // The quick mode's own overrides are what is compared there.
    expect(() => adoptBundles([{ entryId: 'shell', source }], options([{ id: 'shell', spec, quick: { seed: 8 } }], campaign, 'quick'))).toThrow(/spec\.seed is 7 in the bundle, 8 for the entry/);
    expect(existsSync(campaign)).toBe(false);
    expect(firstDifference({ arms: [{ backend: 'host' }, { backend: 'staged' }] }, { arms: [{ backend: 'host' }] }, 'spec')).toEqual({ path: 'spec.arms[1]', expected: { backend: 'staged' }, actual: undefined });
  });

  it('refuses an incomplete bundle and a tampered one (the verify check)', () => {
    const campaign = join(root, 'campaign-bad');
    const entries = [{ id: 'shell', spec }];
    const incomplete = copyOf('incomplete');
    const manifest = JSON.parse(readFileSync(join(incomplete, 'manifest.json'), 'utf8'));
    writeFileSync(join(incomplete, 'manifest.json'), JSON.stringify({ ...manifest, complete: false }));
    expect(() => adoptBundles([{ entryId: 'shell', source: incomplete }], options(entries, campaign))).toThrow(/the bundle is incomplete \(manifest\.json complete: false; 2 of 2 planned trials recorded\); finish it with `sandbench run --resume .*incomplete` first/);
    const tampered = copyOf('tampered');
    appendFileSync(join(tampered, 'summary.csv'), 'x\n');
    expect(() => adoptBundles([{ entryId: 'shell', source: tampered }], options(entries, campaign))).toThrow(/the bundle fails verification \(summary\.csv: changed\)/);
    expect(() => adoptBundles([{ entryId: 'shell', source: join(root, 'campaign-none') }], options(entries, campaign))).toThrow(/no such directory/);
    expect(existsSync(campaign)).toBe(false);
  });

  it('refuses a bundle a checkout with uncommitted changes recorded, in any of its invocations', () => {
    const campaign = join(root, 'campaign-dirty');
    const entries = [{ id: 'shell', spec }];
    const markDirty = (name: string, edit: (m: Record<string, unknown>) => Record<string, unknown>) => {
      const dir = copyOf(name);
      const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(edit(manifest)));
      return dir;
    };
    const refusal = /the bundle was recorded by a harness checkout with uncommitted changes \(harness [0-9a-f]{12}, dirty\), so no commit holds the code behind its figures; commit or stash the changes and re-run it, or let the campaign run shell/;
    // An older bundle names one revision.
    const single = markDirty('dirty-single', ({ harness_commits: _, ...m }) => ({ ...m, harness_dirty: true }));
    expect(() => adoptBundles([{ entryId: 'shell', source: single }], options(entries, campaign))).toThrow(refusal);
    // A resumed bundle: clean at the end, dirty in an earlier invocation.
    const resumed = markDirty('dirty-resumed', (m) => ({ ...m, harness_commits: [{ commit: m.harness_commit, dirty: true }, { commit: m.harness_commit, dirty: false }] }));
    expect(() => adoptBundles([{ entryId: 'shell', source: resumed }], options(entries, campaign))).toThrow(refusal);
    // Outside git (null) is unknown, not dirty.
    const unknown = markDirty('dirty-unknown', (m) => ({ ...m, harness_dirty: null, harness_commits: [{ commit: null, dirty: null }] }));
    expect(() => adoptBundles([{ entryId: 'shell', source: unknown }], options(entries, join(root, 'campaign-unknown')))).not.toThrow();
    expect(existsSync(campaign)).toBe(false);
  });

  it('refuses an unknown entry, one skipped in this mode, a malformed flag and an entry adopted twice', () => {
    const campaign = join(root, 'campaign-entry');
    const entries = [{ id: 'shell', spec, quick: { skip: 'too slow' } }];
    expect(() => adoptBundles([{ entryId: 'nope', source }], options(entries, campaign))).toThrow(/--adopt nope=.*: list\.yaml has no entry nope \(entries: shell\)/);
    expect(() => adoptBundles([{ entryId: 'shell', source }], options(entries, campaign, 'quick'))).toThrow(/entry shell is skipped in --quick \(too slow\).*adopt into a full campaign/);
    expect(() => adoptBundles([{ entryId: 'shell', source }, { entryId: 'shell', source }], options(entries, campaign))).toThrow(/adopted twice/);
    expect(() => parseAdoptFlag('shell')).toThrow(/expected ENTRY=BUNDLE/);
    expect(existsSync(campaign)).toBe(false);
  });
});
