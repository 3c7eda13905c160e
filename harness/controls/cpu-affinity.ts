/**
 * CPU lists ("0-1,3") and affinity helpers. The study pins every launched tree to CPUs 0,1
 * (pVisor protocol); `taskset` is how a spawned tree gets that affinity before its first instruction.
 */
import { readFileSync } from 'node:fs';

/** "0-1,3" → [0, 1, 3] (sorted, unique). Throws on malformed input. */
export function parseCpuList(list: string): number[] {
  const cpus = new Set<number>();
  for (const part of list.trim().split(',')) {
    if (part === '') continue;
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!match) throw new Error(`malformed CPU list "${list}"`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) throw new Error(`malformed CPU range "${part}" in "${list}"`);
    for (let cpu = from; cpu <= to; cpu++) cpus.add(cpu);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** [0, 1, 3] → "0-1,3" (the kernel's canonical form, so read-backs compare as strings too). */
export function formatCpuList(cpus: readonly number[]): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    ranges.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(',');
}

export function sameCpuSet(a: string, b: string): boolean {
  return formatCpuList(parseCpuList(a)) === formatCpuList(parseCpuList(b));
}

/** CPUs the given process may run on (Cpus_allowed_list of /proc/<pid>/status). */
export function allowedCpus(pid: number | 'self' = 'self'): number[] {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status);
  if (!match) throw new Error(`no Cpus_allowed_list in /proc/${pid}/status`);
  return parseCpuList(match[1]!);
}

/** Argv prefix that starts a tree pinned to `cpus` (descendants inherit the mask). */
export function affinityArgv(cpus: string): string[] {
  return ['taskset', '-c', formatCpuList(parseCpuList(cpus))];
}
