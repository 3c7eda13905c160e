/**
 * Acceptance (issue 12): `analyze` on bundles recorded BEFORE the results-model redesign (real runs at
 * commit 7346b3b, stored untouched in test/fixtures/bundles/<kind>/, so they still verify) writes the
 * CSVs stored beside them in <kind>-expected/. Those started as the recorded CSVs; a commit that
 * changes analysis output on purpose regenerates them and says which cells changed and why.
 * Analysis runs on a copy so the fixtures stay pristine.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../../harness/analyze/index.ts';
import { verifyBundle } from '../../../harness/provenance/manifest.ts';
import { kindCatalog } from '../../../cli/kinds.ts';

const kinds = await kindCatalog();

export const FIXTURE_ROOT = resolve(import.meta.dirname, '../../fixtures/bundles');
export const FIXTURE_KINDS = ['shell-ready', 'density', 'replay'] as const;

const scratch = mkdtempSync(join(tmpdir(), 'sandbench-fixture-analyze-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('analyze on pre-redesign fixture bundles', () => {
  for (const kind of FIXTURE_KINDS) {
    it(`${kind}: the recorded bundle still verifies against its own manifest`, () => {
      expect(verifyBundle(join(FIXTURE_ROOT, kind))).toEqual([]);
    });

    it(`${kind}: analysis writes exactly the expected CSVs, byte for byte`, () => {
      const stored = join(FIXTURE_ROOT, kind);
      const expected = join(FIXTURE_ROOT, `${kind}-expected`);
      const copy = join(scratch, kind);
      cpSync(stored, copy, { recursive: true });
      const csvs = readdirSync(expected).filter((f) => f.endsWith('.csv')).sort();
      expect(csvs.length).toBeGreaterThanOrEqual(6);
      // Delete the copies first so a file analyze forgot to write cannot pass by being left over.
      for (const name of csvs) rmSync(join(copy, name));
      const result = analyzeBundle(copy, kinds);
      expect([...result.files].sort()).toEqual(csvs);
      for (const name of csvs) expect(readFileSync(join(copy, name), 'utf8'), `test/fixtures/bundles/${kind}-expected/${name}`).toBe(readFileSync(join(expected, name), 'utf8'));
    });
  }
});
