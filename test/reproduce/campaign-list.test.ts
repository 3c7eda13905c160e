/** The campaign list: the shipped one is valid and every quick entry plans; bad entries name the entry and field. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CAMPAIGN_LIST, overrideFlags, overridesFor, parseCampaignList, readCampaignList } from '../../harness/campaign/campaign-list.ts';
import { UserError } from '../../harness/errors.ts';
import { runCli } from '../reports/run-cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const spec = 'experiments/specs/shell-ready.yaml';
const parse = (entries: unknown[]) => () => parseCampaignList('list.yaml', { name: 'x', entries });

describe('campaign list', () => {
  it('ships a list whose every entry has a spec, unique ids and quick overrides that plan', async () => {
    const list = readCampaignList(DEFAULT_CAMPAIGN_LIST);
    expect(list.entries.map((e) => e.id)).toEqual(expect.arrayContaining(['shell-ready', 'repair', 'density', 'replay', 'lazy-image', 'isolation', 'agent-cli', 'checkpoint', 'lazy-image-vm']));
    for (const entry of list.entries.filter((e) => !e.quick.skip)) {
      const cli = await runCli(['plan', entry.specPaths.quick, ...overrideFlags(overridesFor(entry, 'quick'))]);
      expect(cli.code, `${entry.id}: ${cli.stderr}`).toBe(0);
    }
  });

  it('refuses a bad entry naming the file, the entry and the field', () => {
    const check = (entries: unknown[], message: RegExp) => {
      expect(parse(entries)).toThrow(UserError);
      expect(parse(entries)).toThrow(message);
    };
    check([{ id: 'a', spec }, { id: 'repair' }], /^list\.yaml: entry 2 \(repair\): spec: /);
    check([{ id: 'a', spec, quick: { trials: 0 } }], /entry 1 \(a\): quick\.trials: /);
    check([{ id: 'a', spec, quick: { trails: 3 } }], /entry 1 \(a\): quick: .*trails/);
    check([{ id: 'A b', spec }], /entry 1 \(A b\): id: lower-case/);
    check([{ id: 'a', spec }, { id: 'a', spec }], /entry 2 \(a\): id: "a" is used by an earlier entry/);
    check([{ id: 'a', spec: 'experiments/specs/nope.yaml' }], /entry 1 \(a\): spec: experiments\/specs\/nope\.yaml does not exist/);
    check([{ id: 'a', spec, quick: { spec: 'nope.yaml' } }], /entry 1 \(a\): quick\.spec: nope\.yaml does not exist/);
    expect(() => parseCampaignList('list.yaml', { name: 'x' })).toThrow(/list\.yaml: entries: /);
  });

  it('reads a list file outside the project with spec paths relative to it, and refuses bad YAML', () => {
    const dir = tempDir('sandbench-campaign-list-');
    writeFileSync(join(dir, 's.yaml'), 'name: s\n');
    writeFileSync(join(dir, 'list.yaml'), 'name: t\nentries:\n  - { id: s, spec: s.yaml, quick: { trials: 2, arms: [host] } }\n');
    const list = readCampaignList(join(dir, 'list.yaml'));
    expect(list.entries[0]!.specPath).toBe(join(dir, 's.yaml'));
    expect(overrideFlags(overridesFor(list.entries[0]!, 'quick'))).toEqual(['--arms', 'host', '--trials', '2']);
    writeFileSync(join(dir, 'bad.yaml'), 'name: [\n');
    expect(() => readCampaignList(join(dir, 'bad.yaml'))).toThrow(/bad\.yaml: not valid YAML/);
  });
});
