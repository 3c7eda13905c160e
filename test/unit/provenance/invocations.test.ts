/**
 * invocations.jsonl: every run that wrote to a bundle leaves one fsynced line with its harness
 * revision, so a bundle resumed under another commit says so (manifest harness_commits).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FILES } from '../../../harness/bundle/layout.ts';
import { distinctRevisions, invocationRevisions, readInvocations, recordInvocation } from '../../../harness/provenance/invocations.ts';
import { tempDir } from '../../support/temp-dirs.ts';

describe('invocations.jsonl', () => {
  it('keeps one line per run, oldest first, and the revisions of a resumed bundle in order', () => {
    const dir = tempDir('sandbench-invocations-');
    expect(readInvocations(dir)).toEqual([]);
    recordInvocation(dir, { commit: 'aaa', dirty: false }, false, new Date('2026-12-01T10:00:00Z'));
    recordInvocation(dir, { commit: 'bbb', dirty: true }, true, new Date('2026-12-01T11:00:00Z'));
    recordInvocation(dir, { commit: 'aaa', dirty: false }, true, new Date('2026-12-01T12:00:00Z'));
    expect(readInvocations(dir).map((i) => [i.resumed, i.harness_commit, i.started_at])).toEqual([
      [false, 'aaa', '2026-12-01T10:00:00.000Z'],
      [true, 'bbb', '2026-12-01T11:00:00.000Z'],
      [true, 'aaa', '2026-12-01T12:00:00.000Z'],
    ]);
    expect(distinctRevisions([...invocationRevisions(dir), { commit: 'ccc', dirty: false }])).toEqual([
      { commit: 'aaa', dirty: false },
      { commit: 'bbb', dirty: true },
      { commit: 'ccc', dirty: false },
    ]);
  });

  it('leaves out a torn last line (a kill mid-write) and names a damaged earlier one', () => {
    const dir = tempDir('sandbench-invocations-');
    recordInvocation(dir, { commit: 'aaa', dirty: false }, false);
    const path = join(dir, BUNDLE_FILES.invocations);
    appendFileSync(path, '{"started_at": "2026-12-01T1');
    expect(readInvocations(dir)).toHaveLength(1);
    appendFileSync(path, '\n');
    recordInvocation(dir, { commit: 'bbb', dirty: false }, true);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    expect(() => readInvocations(dir)).toThrow(/invocations\.jsonl: line 2 is not an invocation record/);
  });
});
