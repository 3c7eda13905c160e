/**
 * Issue 35 (5): schemas/ is what the zod schemas generate (npm run schemas), and real outputs —
 * a real run's bundle files, `run --json`, `analyze --json`, `doctor --json`, every shipped spec —
 * validate against the published files with ajv, a validator that is not zod.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Papa from 'papaparse';
import { parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED_SCHEMAS, publishedFileName, schemaFileText } from '../../cli/json-schemas.ts';
import { SPEC_KINDS } from '../../experiments/registry.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const SCHEMA_DIR = join(PROJECT_ROOT, 'schemas');
const published = (name: string) => JSON.parse(readFileSync(join(SCHEMA_DIR, publishedFileName(PUBLISHED_SCHEMAS.find((e) => e.name === name)!)), 'utf8')) as object;

const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addKeyword('x-sandbench-version');
// zod emits "format": "uri" for the image mirror; a URL check is not what these tests are about.
ajv.addFormat('uri', true);

/** One compiled validator per schema (ajv refuses a second schema with the same $id). */
const validatorFor = (name: string) => ajv.getSchema(publishedFileName(PUBLISHED_SCHEMAS.find((e) => e.name === name)!)) ?? ajv.compile(published(name));

function expectValid(name: string, document: unknown, what: string): void {
  const validate = validatorFor(name);
  const ok = validate(document);
  expect(ok, `${what} against ${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

const csvRows = (file: string) => Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;

describe('published JSON Schemas', () => {
  it('schemas/ is exactly what the zod schemas generate (run `npm run schemas` after changing one)', () => {
    const expected = new Map(PUBLISHED_SCHEMAS.map((entry) => [publishedFileName(entry), schemaFileText(entry, SPEC_KINDS)]));
    expect(readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort()).toEqual([...expected.keys()].sort());
    for (const [file, text] of expected) expect(readFileSync(join(SCHEMA_DIR, file), 'utf8'), `schemas/${file} is stale: npm run schemas`).toBe(text);
  });

  it('`sandbench schema <name>` prints the published file', async () => {
    const cli = await sandbench(['schema', 'spec']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(`${cli.stdout}\n`).toBe(readFileSync(join(SCHEMA_DIR, 'spec.v1.schema.json'), 'utf8'));
  });

  it('every shipped spec and starter validates against the spec schema; a typo does not', () => {
    const specs = readdirSync(join(PROJECT_ROOT, 'experiments', 'specs')).filter((f) => f.endsWith('.yaml') && f !== 'campaign.yaml');
    expect(specs.length).toBeGreaterThan(20);
    for (const file of specs) expectValid('spec', parseYaml(readFileSync(join(PROJECT_ROOT, 'experiments', 'specs', file), 'utf8')), file);
    for (const kind of SPEC_KINDS.names) {
      const starter = SPEC_KINDS.spec(kind)?.starter;
      if (starter) expectValid('spec', parseYaml(readFileSync(join(PROJECT_ROOT, starter), 'utf8')), starter);
    }
    expectValid('spec', { name: 'x', experiment: 'shell-ready', arms: ['host', 'staged'] }, 'the minimal spec');
    const validate = validatorFor('spec');
    expect(validate({ name: 'x', experiment: 'shell-ready', arms: ['host'], trails: 3 })).toBe(false);
    expect(validate({ name: 'x', experiment: 'shel-ready', arms: ['host'] })).toBe(false);
  });

  describe('a real run (quick.yaml, host + staged)', () => {
    let bundle = '';
    let runJson = '';
    beforeAll(async () => {
      bundle = join(tempDir('sandbench-schemas-'), 'bundle');
      const run = await sandbench(['run', 'experiments/specs/quick.yaml', '--arms', 'host,staged', '--trials', '3', '--warmups', '0', '--out', bundle, '--json']);
      expect(run.code, run.stderr).toBe(0);
      runJson = run.stdout;
    }, 300_000);

    it('its bundle files validate: resolved-spec.json, plan.json, environment.json, manifest.json and the CSV rows', () => {
      const json = (file: string) => JSON.parse(readFileSync(join(bundle, file), 'utf8')) as unknown;
      expectValid('bundle-resolved-spec', json('resolved-spec.json'), 'resolved-spec.json');
      expectValid('bundle-plan', json('plan.json'), 'plan.json');
      expectValid('bundle-environment', json('environment.json'), 'environment.json');
      expectValid('bundle-manifest', json('manifest.json'), 'manifest.json');
      for (const [name, file] of [['bundle-summary-row', 'summary.csv'], ['bundle-comparison-row', 'comparisons.csv'], ['bundle-evidence-row', 'evidence.csv']] as const) {
        const rows = csvRows(join(bundle, file));
        expect(rows.length, file).toBeGreaterThan(0);
        rows.forEach((row, i) => expectValid(name, row, `${file} row ${i + 1}`));
      }
    });

    it('run --json and analyze --json validate against the analysis schema', async () => {
      expectValid('analysis', JSON.parse(runJson), 'run --json');
      const analyze = await sandbench(['analyze', bundle, '--json']);
      expect(analyze.code, analyze.stderr).toBe(0);
      expectValid('analysis', JSON.parse(analyze.stdout), 'analyze --json');
      // Not a schema that accepts anything: the same document without its run id fails.
      const { run_id: _dropped, ...withoutRunId } = JSON.parse(analyze.stdout) as Record<string, unknown>;
      expect(validatorFor('analysis')(withoutRunId)).toBe(false);
    });

    it('doctor --json validates against the doctor schema', async () => {
      const doctor = await sandbench(['doctor', '--json']);
      expect([0, 1]).toContain(doctor.code);
      expectValid('doctor', JSON.parse(doctor.stdout), 'doctor --json');
    }, 120_000);
  });
});
