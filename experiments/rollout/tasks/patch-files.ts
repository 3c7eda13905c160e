/** What a unified diff (git format, as SWE-bench ships patches) touches, without applying it. */

export interface PatchFile {
  /** Path before (null for a new file) and after (null for a deletion), workspace-relative. */
  readonly from: string | null;
  readonly to: string | null;
  /** The `diff --git` section of this file, with its trailing newline. */
  readonly text: string;
  /** Number of @@ hunks. */
  readonly hunks: number;
}

function stripPrefix(path: string): string | null {
  if (path === '/dev/null') return null;
  return path.replace(/^[ab]\//, '');
}

/** Split a git-format patch into its per-file sections (text before the first `diff --git` is dropped). */
export function splitPatch(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  const sections = patch.split(/^(?=diff --git )/m).filter((section) => section.startsWith('diff --git '));
  for (const section of sections) {
    const text = section.endsWith('\n') ? section : `${section}\n`;
    const header = /^diff --git a\/(\S+) b\/(\S+)/.exec(text);
    const minus = /^--- (\S+)/m.exec(text);
    const plus = /^\+\+\+ (\S+)/m.exec(text);
    let from = minus ? stripPrefix(minus[1]) : header ? header[1] : null;
    let to = plus ? stripPrefix(plus[1]) : header ? header[2] : null;
    if (/^new file mode/m.test(text)) from = null;
    if (/^deleted file mode/m.test(text)) to = null;
    files.push({ from, to, text, hunks: (text.match(/^@@ /gm) ?? []).length });
  }
  return files;
}

/** Every workspace path a patch reads or writes. */
export function patchedPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const file of splitPatch(patch)) {
    if (file.from) paths.add(file.from);
    if (file.to) paths.add(file.to);
  }
  return [...paths];
}
