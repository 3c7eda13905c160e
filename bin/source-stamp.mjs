/**
 * The identity of the CLI's TypeScript sources for the dist/ freshness check: how many there are
 * and the newest modification time. Plain JS, no dependencies: it runs on every start (≈ 2 ms for
 * a few hundred files), before anything else is loaded.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const SOURCE_FOLDERS = ['cli', 'harness', 'executors', 'services', 'experiments', 'reports'];

function scan(dir, acc) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) scan(path, acc);
    else if (entry.name.endsWith('.ts')) {
      acc.files += 1;
      acc.newestMs = Math.max(acc.newestMs, statSync(path).mtimeMs);
    }
  }
}

/** { files, newestMs } over every .ts file below the source folders of `root`. */
export function sourceStamp(root) {
  const acc = { files: 0, newestMs: 0 };
  for (const folder of SOURCE_FOLDERS) scan(join(root, folder), acc);
  return acc;
}
