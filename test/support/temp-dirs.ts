/**
 * Temp dirs a test file makes, removed when the file ends — passed, failed or thrown in a hook —
 * so a failing test leaves nothing in os.tmpdir() for the suite's temp guard (global-setup.ts) to
 * report. File scope, not per test, because several files hand a dir from one test to the next.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { removeTempDir } from './remove-dir.ts';

const made: string[] = [];

// Imported at the top of a test file, so this hook sits on the file's root suite: it runs after
// every describe's own afterAll (which may still stop a service writing into a dir).
afterAll(() => {
  const failures: string[] = [];
  for (const dir of made.splice(0)) {
    try {
      removeTempDir(dir);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (failures.length > 0) throw new Error(failures.join('\n'));
});

/** A fresh `<os.tmpdir()>/<prefix>XXXXXX`, removed after this test file. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
