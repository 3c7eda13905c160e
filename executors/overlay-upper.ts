/**
 * Reading an overlayfs upper layer as "what the task changed": every file, symlink or new directory
 * in it, and whiteouts (0:0 character devices) as deleted paths. Used by every staging backend.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

function isWhiteout(path: string): boolean {
  const stat = lstatSync(path);
  return stat.isCharacterDevice() && stat.rdev === 0;
}

export function listUpperLayer(upper: string, baseline: string): string[] {
  const changed: string[] = [];
  const walk = (relative: string) => {
    for (const name of readdirSync(relative ? join(upper, relative) : upper).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      const path = join(upper, rel);
      if (isWhiteout(path)) changed.push(`${rel} (deleted)`);
      else if (lstatSync(path).isDirectory()) {
        if (!existsSync(join(baseline, rel))) changed.push(rel);
        walk(rel);
      } else changed.push(rel);
    }
  };
  if (existsSync(upper)) walk('');
  return changed.sort();
}
