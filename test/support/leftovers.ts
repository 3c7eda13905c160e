/**
 * What a run may leave behind on this machine, found by its run id: processes, containers (by the
 * `sandbench.run_id` label), mounts and scratch directories. Used to prove cleanup after
 * interrupts, kills and whole test suites.
 */
import { existsSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';

export async function leftoversOf(runId: string, processMarker?: string): Promise<string[]> {
  const found: string[] = [];
  const ps = await execa('ps', ['-eo', 'pid,args'], { reject: false });
  for (const line of ps.stdout.split('\n')) {
    if (line.includes('ps -eo')) continue;
    if (line.includes(`sandbench-${runId}`) || (processMarker && line.includes(processMarker))) found.push(`process: ${line.trim()}`);
  }
  const podman = await execa('podman', ['ps', '-a', '--filter', `label=sandbench.run_id=${runId}`, '--format', '{{.Names}}'], { reject: false });
  if (podman.exitCode === 0) for (const name of podman.stdout.split('\n').filter(Boolean)) found.push(`podman container: ${name}`);
  for (const line of readFileSync('/proc/mounts', 'utf8').split('\n')) if (line.includes(runId)) found.push(`mount: ${line}`);
  const scratch = runScratchDir(stateDir(), runId);
  if (existsSync(scratch)) found.push(`tempdir: ${scratch}`);
  return found;
}
