/**
 * Per-trial disks. The scratch disk is a sparse ext4 (no journal: the guest unmounts it before
 * reset and the host reads it with debugfs, which does not replay journals) holding lower/ = a copy
 * of the baseline workspace and empty upper/ + work/ for the guest's overlay. The task disk is a
 * raw shell fragment (SB_STDIN and `set -- argv`) the guest init sources: argv and env can be long,
 * so they do not go on the kernel command line, and writing it costs well under a millisecond.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { TaskCommand } from '../../harness/contracts/executor.ts';
import { SANDBOX_PATH } from '../launch-prefix.ts';
import { copyWorkspace } from '../workspace-diff.ts';

export const SCRATCH_DISK_SERIAL = 'sbscratch';
export const TASK_DISK_SERIAL = 'sbtask';
/** Room for the task's writes on top of the baseline (sparse: costs host disk only when written). */
const SCRATCH_HEADROOM_MiB = 1024;

async function sizeKiB(dir: string): Promise<number> {
  const { stdout } = await execa('du', ['-sk', '--apparent-size', dir]);
  return Number.parseInt(stdout.split(/\s/)[0]!, 10);
}

/** Build `<dir>/scratch.ext4` from the baseline workspace; the host baseline is only read. */
export async function buildScratchDisk(baselineWorkspace: string, dir: string): Promise<string> {
  const tree = join(dir, 'scratch-tree');
  rmSync(tree, { recursive: true, force: true });
  await copyWorkspace(baselineWorkspace, join(tree, 'lower'));
  mkdirSync(join(tree, 'upper'));
  mkdirSync(join(tree, 'work'));
  const sizeMiB = Math.ceil((await sizeKiB(tree)) / 1024) * 2 + SCRATCH_HEADROOM_MiB;
  const path = join(dir, 'scratch.ext4');
  await execa('mkfs.ext4', ['-q', '-F', '-L', SCRATCH_DISK_SERIAL, '-O', '^has_journal', '-E', 'root_owner=0:0,lazy_itable_init=1,nodiscard', '-d', tree, path, `${sizeMiB}M`]);
  rmSync(tree, { recursive: true, force: true });
  return path;
}

/** POSIX single-quote quoting: safe for any byte string without NUL. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Environment inside the guest: the same defaults host and staged give, then the task's own. */
export function guestEnv(task: TaskCommand): Record<string, string> {
  return { PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...task.env };
}

/** The shell fragment vm-init.sh sources: `env -i --chdir=/workspace K=V... argv` runs inside the image. */
/** What the guest init sets up beyond the task: extra disks mounted read-only, the service route. */
export interface GuestExtras {
  /** `serial=target` for each mount disk. */
  mounts: { serial: string; target: string }[];
  /** `<guest address> <service address>` when the task has a service. */
  net: { guestAddr: string; serviceAddr: string } | null;
}

export function renderTaskFile(task: TaskCommand, extras: GuestExtras = { mounts: [], net: null }): string {
  for (const key of Object.keys(task.env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new Error(`environment variable name ${JSON.stringify(key)} cannot be passed to the guest`);
  }
  if (task.argv.length === 0) throw new Error('empty task argv');
  if (task.argv[0]!.includes('=')) throw new Error(`argv[0] ${JSON.stringify(task.argv[0])} contains "=", which env(1) would take for an assignment`);
  const assignments = Object.entries(guestEnv(task)).map(([key, value]) => `${key}=${value}`);
  const words = ['/usr/bin/env', '-i', '--chdir=/workspace', ...assignments, ...task.argv];
  const mounts = extras.mounts.map(({ serial, target }) => `${serial}=${target}`).join(' ');
  const net = extras.net ? `${extras.net.guestAddr} ${extras.net.serviceAddr}` : '';
  return `# sandbench task v1\nSB_STDIN=${task.stdin}\nSB_MOUNTS=${shellQuote(mounts)}\nSB_NET=${shellQuote(net)}\nset -- ${words.map(shellQuote).join(' ')}\n`;
}

/** Write the task disk; padded with newlines to whole 512-byte sectors (virtio-blk sees sectors). */
export function writeTaskDisk(task: TaskCommand, dir: string, extras?: GuestExtras): string {
  const text = Buffer.from(renderTaskFile(task, extras), 'utf8');
  const padded = Buffer.alloc(Math.ceil((text.length + 1) / 512) * 512, '\n');
  text.copy(padded);
  const path = join(dir, 'task.raw');
  writeFileSync(path, padded);
  return path;
}
