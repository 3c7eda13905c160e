/**
 * Remove a temp dir, refusing when something is still mounted below it: a recursive delete would
 * walk into the mount and erase what it shows (a bind-mounted source, a live overlay's upper dir).
 * No vitest import: global setup (outside any test file) uses it too.
 */
import { readFileSync, rmSync } from 'node:fs';
import { sep } from 'node:path';

export function removeTempDir(dir: string): void {
  const mounted = mountPointsUnder(dir);
  if (mounted.length > 0) throw new Error(`temp dir ${dir} not removed: still mounted below it: ${mounted.join(', ')}`);
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

function mountPointsUnder(dir: string): string[] {
  const root = dir.endsWith(sep) ? dir : `${dir}${sep}`;
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1])
    .filter((point): point is string => point !== undefined)
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((point) => point === dir || point.startsWith(root));
}
