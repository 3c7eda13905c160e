/**
 * Which run a leftover belongs to. Names carry `sandbench-<runId>` (temp dirs exactly; cgroups, VMs
 * and containers with a `-<suffix>` after it), so an id is read from the name by matching the run
 * ids known on this machine (temp dirs, locks, container labels) — the longest that fits — and
 * only then by the shape of a generated id (harness/run/bundle-dir.ts newRunId).
 */

/** newRunId(): `<yyyymmddThhmmssZ>-<slug>-<4 base36>`; lazy so a trailing `-<trial>` is not swallowed. */
const GENERATED_ID = /sandbench-(\d{8}T\d{6}Z-(?:[a-z0-9]+-)*?[a-z0-9]{4})(?=[-/.\s\0]|$)/;

export const UNKNOWN_RUN = 'unknown';

function isBoundary(char: string | undefined): boolean {
  return char === undefined || !/[a-zA-Z0-9]/.test(char);
}

export function runIdIn(text: string, known: readonly string[]): string | null {
  let best: string | null = null;
  for (const id of known) {
    const needle = `sandbench-${id}`;
    let at = text.indexOf(needle);
    while (at !== -1) {
      if (isBoundary(text[at + needle.length]) && (best === null || id.length > best.length)) best = id;
      at = text.indexOf(needle, at + 1);
    }
  }
  if (best !== null) return best;
  return GENERATED_ID.exec(text)?.[1] ?? null;
}

/** Whether `text` names a resource of one of these (live) runs. */
export function mentionsAny(text: string, runIds: Iterable<string>): boolean {
  for (const id of runIds) {
    const needle = `sandbench-${id}`;
    const at = text.indexOf(needle);
    if (at !== -1 && isBoundary(text[at + needle.length])) return true;
  }
  return false;
}
