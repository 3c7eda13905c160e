/**
 * Reads what a VM task changed in /workspace from the scratch disk's overlay upper layer, on the
 * host and without mounting: `debugfs` lists the upper tree level by level (one process per level)
 * and `rdump`s it into the trial directory. Overlay encodes deletions as 0:0 character devices
 * (whiteouts) and a directory replaced wholesale as an "opaque" directory (trusted.overlay.opaque=y).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

export const UPPER_DIR = '/upper';
export const LOWER_DIR = '/lower';

interface UpperEntry {
  name: string;
  mode: number;
}

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFCHR = 0o020000;
const DELETED = ' (deleted)';

/** debugfs command argument quoting (it accepts double-quoted words). */
function quoted(path: string): string {
  if (/["\n]/.test(path)) throw new Error(`path ${JSON.stringify(path)} cannot be passed to debugfs`);
  return `"${path}"`;
}

/** Run commands through one `debugfs -f -`; returns each command's stdout section, in order. */
export async function debugfsBatch(image: string, commands: string[]): Promise<string[]> {
  if (commands.length === 0) return [];
  // debugfs exits 0 even when it cannot open the image; check first so a missing disk is an error.
  if (!existsSync(image)) throw new Error(`scratch disk ${image} is gone`);
  const { stdout } = await execa('debugfs', ['-f', '-', image], { input: `${commands.join('\n')}\n`, stripFinalNewline: false });
  // debugfs echoes each command as "debugfs: <command>" on stdout before its output.
  const sections = stdout.split(/^debugfs: .*$/m).slice(1);
  if (sections.length !== commands.length) throw new Error(`debugfs answered ${sections.length} of ${commands.length} commands on ${image}`);
  return sections;
}

/** Parse `ls -p` lines: /inode/mode/uid/gid/name/size/ ("." and ".." dropped). */
export function parseLsP(section: string): UpperEntry[] {
  const entries: UpperEntry[] = [];
  for (const line of section.split('\n')) {
    const match = /^\/(\d+)\/([0-7]+)\/\d+\/\d+\/(.*)\/(\d*)\/$/.exec(line);
    if (!match) continue;
    const name = match[3]!;
    if (name === '.' || name === '..') continue;
    entries.push({ name, mode: Number.parseInt(match[2]!, 8) });
  }
  return entries;
}

function baselineEntries(baseline: string, relative: string): string[] {
  const dir = join(baseline, relative);
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(baseline, rel), { withFileTypes: true })) {
      const child = `${rel}/${entry.name}`;
      found.push(child);
      if (entry.isDirectory()) walk(child);
    }
  };
  walk(relative);
  return found;
}

export interface UpperListing {
  changed: string[];
  /** Paths the task deleted (whiteouts and entries hidden by opaque directories). */
  deleted: Set<string>;
  /** Directories present in the upper layer (they have no file content to read). */
  directories: Set<string>;
}

/**
 * Changed paths relative to /workspace, with the same meaning as the staged backend's upper-dir
 * listing: files present in upper, new directories, " (deleted)" for whiteouts and for baseline
 * entries hidden under an opaque directory.
 */
export async function listUpperLayer(image: string, baselineWorkspace: string): Promise<UpperListing> {
  const changed: string[] = [];
  const directories = new Set<string>();
  let level = [''];
  while (level.length > 0) {
    const commands = level.flatMap((rel) => {
      const path = rel ? `${UPPER_DIR}/${rel}` : UPPER_DIR;
      return [`ls -p ${quoted(path)}`, `ea_list ${quoted(path)}`];
    });
    const sections = await debugfsBatch(image, commands);
    const next: string[] = [];
    level.forEach((rel, index) => {
      const opaque = /trusted\.overlay\.opaque \(1\) = "y"/.test(sections[index * 2 + 1]!);
      const children = parseLsP(sections[index * 2]!);
      if (rel && opaque) {
        const present = new Set(children.map((child) => `${rel}/${child.name}`));
        for (const hidden of baselineEntries(baselineWorkspace, rel)) {
          if (![...present].some((p) => hidden === p || hidden.startsWith(`${p}/`))) changed.push(`${hidden} (deleted)`);
        }
      }
      for (const child of children) {
        const childRel = rel ? `${rel}/${child.name}` : child.name;
        const type = child.mode & S_IFMT;
        if (type === S_IFCHR) {
          changed.push(`${childRel} (deleted)`);
        } else if (type === S_IFDIR) {
          if (!existsSync(join(baselineWorkspace, childRel))) changed.push(childRel);
          directories.add(childRel);
          next.push(childRel);
        } else changed.push(childRel);
      }
    });
    level = next;
  }
  const sorted = [...new Set(changed)].sort();
  const deleted = new Set(sorted.filter((path) => path.endsWith(DELETED)).map((path) => path.slice(0, -DELETED.length)));
  return { changed: sorted, deleted, directories };
}

/**
 * Copy the upper layer out of the image into `destination` (files, directories and symlinks; whiteouts
 * are not files and are known from the listing). Candidate reads must outlive the scratch disk,
 * which finishTrial deletes, so they are served from this host copy.
 */
export async function extractUpperLayer(image: string, destination: string): Promise<string> {
  // Not recursive: if the harness already removed the trial directory (interrupted run), do not recreate it.
  mkdirSync(destination);
  const result = await execa('debugfs', ['-R', `rdump ${quoted(UPPER_DIR)} ${quoted(destination)}`, image], { reject: false });
  const upper = join(destination, UPPER_DIR.slice(1));
  if (result.exitCode !== 0 || !existsSync(upper)) throw new Error(`debugfs rdump of ${image} failed: ${result.stderr.trim()}`);
  return upper;
}

/**
 * /workspace/<relative> as the task left it: deleted paths (or paths under one) and directories are
 * absent, the upper copy wins, otherwise the baseline (the lower layer is a copy of it).
 */
export async function readCandidate(upperCopy: string, baseline: string, relative: string, listing: Pick<UpperListing, 'deleted' | 'directories'>): Promise<Buffer | null> {
  const parts = relative.split('/');
  if (parts.some((_, index) => listing.deleted.has(parts.slice(0, index + 1).join('/')))) return null;
  for (const root of [upperCopy, baseline]) {
    const path = join(root, relative);
    if (existsSync(path) && !lstatSync(path).isDirectory()) return readFile(path);
    if (existsSync(path)) return null;
  }
  return null;
}
