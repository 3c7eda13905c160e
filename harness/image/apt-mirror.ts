import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const FALLBACK_MIRROR = 'http://deb.debian.org/debian';

/** The Debian mirror apt is configured with (deb822 .sources first, then sources.list), so image builds use the same registry. */
export function configuredDebianMirror(aptDir = '/etc/apt'): string {
  const candidates: string[] = [];
  const listDir = join(aptDir, 'sources.list.d');
  if (existsSync(listDir)) {
    for (const name of readdirSync(listDir).sort()) {
      if (name.endsWith('.sources')) candidates.push(...deb822Uris(readFileSync(join(listDir, name), 'utf8')));
      if (name.endsWith('.list')) candidates.push(...oneLineUris(readFileSync(join(listDir, name), 'utf8')));
    }
  }
  const mainList = join(aptDir, 'sources.list');
  if (existsSync(mainList)) candidates.push(...oneLineUris(readFileSync(mainList, 'utf8')));
  return candidates.find((uri) => /\/debian\/?$/.test(uri) && !uri.includes('security')) ?? FALLBACK_MIRROR;
}

function deb822Uris(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('URIs:'))
    .flatMap((line) => line.slice('URIs:'.length).trim().split(/\s+/));
}

function oneLineUris(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('deb '))
    .map((line) => line.split(/\s+/).find((part) => /^https?:\/\//.test(part)) ?? '')
    .filter(Boolean);
}
