/**
 * Processes left by killed runs. A trial tree is spawned detached (its own process group), so a
 * harness killed with -9 leaves it running, re-parented away from the harness. A process belongs
 * to run R when its working directory or argv is under a scratch root's `sandbench-R/` (harness/state-dir.ts scratchRoots), or its
 * argv/environment mentions `sandbench-R` (qemu `-name sandbench-R-<trial>`, container names) or
 * its environment has SANDBENCH_RUN_ID=R.
 * Members of a matched trial's process group belong to it too.
 */
import { processStartTicks } from '../run/run-lock.ts';
import { scratchRoots } from '../state-dir.ts';
import { procTable, selfAndAncestors, type ProcInfo } from './proc-table.ts';
import { runIdIn, UNKNOWN_RUN } from './run-ids.ts';

export interface ProcessMatch {
  info: ProcInfo;
  runId: string;
  kind: 'process' | 'vm';
  startTicks: string | null;
  /** True when the tree still hangs below a live node process (a harness or test worker): not a leftover. */
  attached: boolean;
}

function scratchRunId(path: string, tmpRoots: readonly string[]): string | null {
  for (const tmpRoot of tmpRoots) {
    const prefix = `${tmpRoot}/sandbench-`;
    const at = path.indexOf(prefix);
    if (at === -1) continue;
    const id = path.slice(at + prefix.length).split(/[/\s\0]/)[0];
    if (id) return id;
  }
  return null;
}

/** Long-lived helpers whose argv names nothing (e.g. the lazy client's `sleep infinity`) carry the run id in their environment. */
export const RUN_ID_ENV = 'SANDBENCH_RUN_ID';

function envRunId(environ: string): string | null {
  const entry = environ.split('\0').find((item) => item.startsWith(`${RUN_ID_ENV}=`));
  const id = entry?.slice(RUN_ID_ENV.length + 1);
  return id ? id : null;
}

function matchRun(info: ProcInfo, tmpRoots: readonly string[], known: readonly string[]): string | null {
  return (
    envRunId(info.environ) ??
    scratchRunId(`${info.cwd}/`, tmpRoots) ??
    scratchRunId(info.cmdline, tmpRoots) ??
    (info.cmdline.includes('sandbench-') ? runIdIn(info.cmdline, known) : null) ??
    (info.environ.includes('sandbench-') ? runIdIn(info.environ, known) : null)
  );
}

const isNode = (info: ProcInfo | undefined) => info !== undefined && (info.comm === 'node' || /(^|\/)node(\s|$)/.test(info.cmdline.split(' ')[0] ?? ''));

export function findProcesses(stateDir: string, known: readonly string[]): ProcessMatch[] {
  const table = procTable();
  const protectedPids = selfAndAncestors(table);
  const tmpRoots = scratchRoots(stateDir);
  const matched = new Map<number, string>();
  for (const info of table.values()) {
    if (protectedPids.has(info.pid) || info.pid === 1 || info.state === 'Z') continue;
    const runId = matchRun(info, tmpRoots, known);
    if (runId) matched.set(info.pid, runId);
  }
  // Whole process groups of matched group leaders (a trial's detached tree).
  for (const info of table.values()) {
    if (matched.has(info.pid) || protectedPids.has(info.pid) || info.pid === 1 || info.state === 'Z') continue;
    const leaderRun = matched.get(info.pgid);
    if (leaderRun && table.get(info.pgid)?.pgid === info.pgid) matched.set(info.pid, leaderRun);
  }
  const matches: ProcessMatch[] = [];
  for (const [pid, runId] of matched) {
    const info = table.get(pid)!;
    // Walk up past the matched part of the tree: a live node parent means the run is still running.
    let parent = table.get(info.ppid);
    const seen = new Set<number>();
    while (parent && matched.has(parent.pid) && !seen.has(parent.pid)) {
      seen.add(parent.pid);
      parent = table.get(parent.ppid);
    }
    const attached = parent !== undefined && parent.pid !== 1 && isNode(parent);
    matches.push({ info, runId: runId || UNKNOWN_RUN, kind: info.comm.startsWith('qemu-system') ? 'vm' : 'process', startTicks: processStartTicks(pid), attached });
  }
  return matches.sort((a, b) => a.info.pid - b.info.pid);
}

/** SIGKILL one matched process (and its group when it leads one), unless its pid was recycled. */
export function killMatch(match: ProcessMatch): void {
  if (processStartTicks(match.info.pid) !== match.startTicks) return;
  try {
    if (match.info.pgid === match.info.pid) process.kill(-match.info.pid, 'SIGKILL');
  } catch {
    // group already gone
  }
  try {
    process.kill(match.info.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
