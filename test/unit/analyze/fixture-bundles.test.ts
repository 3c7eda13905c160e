/**
 * Acceptance (issue 12): `analyze` on bundles recorded BEFORE the results-model redesign (real runs at
 * commit 7346b3b, stored in test/fixtures/bundles/) rewrites every CSV byte for byte. The stored CSVs
 * are the expected output; analysis runs on a copy so the fixtures stay pristine.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../../harness/analyze/index.ts';
import { kindCatalog } from '../../../cli/kinds.ts';

const kinds = await kindCatalog();

export const FIXTURE_ROOT = resolve(import.meta.dirname, '../../fixtures/bundles');
export const FIXTURE_KINDS = ['shell-ready', 'density', 'replay'] as const;

const scratch = mkdtempSync(join(tmpdir(), 'sandbench-fixture-analyze-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('analyze on pre-redesign fixture bundles', () => {
  for (const kind of FIXTURE_KINDS) {
    it(`${kind}: every stored CSV is rewritten byte-identically`, () => {
      const stored = join(FIXTURE_ROOT, kind);
      const copy = join(scratch, kind);
      cpSync(stored, copy, { recursive: true });
      const csvs = readdirSync(stored).filter((f) => f.endsWith('.csv')).sort();
      expect(csvs.length).toBeGreaterThanOrEqual(6);
      // Delete the copies first so a file analyze forgot to write cannot pass by being left over.
      for (const name of csvs) rmSync(join(copy, name));
      const result = analyzeBundle(copy, kinds);
      expect([...result.files].sort()).toEqual(csvs);
      for (const name of csvs) expect(readFileSync(join(copy, name), 'utf8'), `${kind}/${name}`).toBe(readFileSync(join(stored, name), 'utf8'));
    });
  }
});
