/**
 * The guest initramfs: busybox-static, the kernel modules the init needs (in dependency order,
 * computed from `modinfo -F depends` because the package ships no modules.dep), and
 * scripts/vm-init.sh as /init. Cached under $SANDBENCH_HOME/vm/initramfs/<key>.cpio where the key
 * hashes every input, so a new kernel, busybox or init script builds a new archive.
 * Uncompressed on purpose: it is ~2.5 MB and decompression costs more than loading under TCG.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { writeCpioNewc, type CpioEntry } from './cpio-newc.ts';
import type { GuestKernel } from './guest-kernel.ts';

export const INIT_SCRIPT = join(PROJECT_ROOT, 'scripts', 'vm-init.sh');
export const BUSYBOX_STATIC = '/bin/busybox';

/** Modules each virtio transport needs; dependencies are added by `moduleLoadOrder`. */
export const TRANSPORT_MODULES = {
  mmio: ['virtio_mmio', 'virtio_blk', 'virtio_console', 'overlay'],
  pci: ['virtio_pci', 'virtio_blk', 'virtio_console', 'overlay'],
} as const;
export type VirtioTransport = keyof typeof TRANSPORT_MODULES;
/** Loaded by the init only when the task has a service (its NIC): other trials skip the insmod. */
export const NET_MODULES = ['virtio_net'] as const;

/** Applets vm-init.sh calls (linked to busybox in /bin). */
const APPLETS = ['sh', 'mount', 'umount', 'insmod', 'mkfifo', 'cat', 'stty', 'setsid', 'chroot', 'kill', 'sync', 'reboot', 'usleep', 'ip', 'mkdir'];

const normalize = (name: string) => name.replace(/-/g, '_');

const PT_INTERP = 3;

/** True when a 64-bit ELF executable asks for a dynamic loader (it would not run in the initramfs). */
export function isDynamicElf(elf: Buffer): boolean {
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2) throw new Error('not a 64-bit ELF file');
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const phentsize = elf.readUInt16LE(0x36);
  const phnum = elf.readUInt16LE(0x38);
  for (let index = 0; index < phnum; index++) {
    if (elf.readUInt32LE(phoff + index * phentsize) === PT_INTERP) return true;
  }
  return false;
}

/** module name → .ko path for every module of the kernel. */
export function indexModules(modulesDir: string): Map<string, string> {
  const index = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ko')) index.set(normalize(entry.name.slice(0, -3)), path);
    }
  };
  walk(join(modulesDir, 'kernel'));
  return index;
}

async function moduleDepends(path: string): Promise<string[]> {
  const { stdout } = await execa('modinfo', ['-F', 'depends', path]);
  return stdout.trim().split(',').map(normalize).filter((name) => name.length > 0);
}

/** Wanted modules plus their dependencies, each after everything it depends on (depth-first post-order). */
export async function moduleLoadOrder(wanted: readonly string[], index: Map<string, string>): Promise<string[]> {
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = async (name: string): Promise<void> => {
    if (order.includes(name)) return;
    if (visiting.has(name)) throw new Error(`module dependency cycle at ${name}`);
    const path = index.get(name);
    if (!path) throw new Error(`guest kernel has no module ${name}`);
    visiting.add(name);
    for (const dependency of await moduleDepends(path)) await visit(dependency);
    visiting.delete(name);
    order.push(name);
  };
  for (const name of wanted) await visit(normalize(name));
  return order;
}

export interface Initramfs {
  path: string;
  /** sha256:<hex> of the archive. */
  digest: string;
  /** Load order per transport, as written to /etc/modules-<transport>. */
  modules: Record<VirtioTransport, string[]>;
  /** Network modules not already in a transport list, as written to /etc/modules-net. */
  netModules: string[];
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function archiveEntries(init: Buffer, busybox: Buffer, modules: Record<VirtioTransport, string[]>, netModules: string[], index: Map<string, string>): CpioEntry[] {
  const dirs = ['bin', 'dev', 'etc', 'lib', 'lib/modules', 'mnt', 'mnt/scratch', 'newroot', 'proc', 'run', 'sys'];
  const allModules = [...new Set([...modules.mmio, ...modules.pci, ...netModules])].sort();
  return [
    ...dirs.map((path): CpioEntry => ({ kind: 'dir', path, mode: 0o755 })),
    // The kernel opens /dev/console for init before devtmpfs is mounted.
    { kind: 'chardev', path: 'dev/console', mode: 0o600, major: 5, minor: 1 },
    { kind: 'file', path: 'bin/busybox', mode: 0o755, data: busybox },
    ...APPLETS.map((applet): CpioEntry => ({ kind: 'symlink', path: `bin/${applet}`, target: 'busybox' })),
    ...allModules.map((name): CpioEntry => ({ kind: 'file', path: `lib/modules/${name}.ko`, mode: 0o644, data: readFileSync(index.get(name)!) })),
    ...(Object.keys(modules) as VirtioTransport[]).map(
      (transport): CpioEntry => ({ kind: 'file', path: `etc/modules-${transport}`, mode: 0o644, data: Buffer.from(modules[transport].map((name) => `${name}.ko\n`).join('')) }),
    ),
    { kind: 'file', path: 'etc/modules-net', mode: 0o644, data: Buffer.from(netModules.map((name) => `${name}.ko\n`).join('')) },
    { kind: 'file', path: 'init', mode: 0o755, data: init },
  ];
}

/** The cached initramfs for this kernel and the current init script and busybox, built when missing. */
export async function ensureInitramfs(stateDir: string, kernel: GuestKernel): Promise<Initramfs> {
  if (!existsSync(BUSYBOX_STATIC)) throw new Error(`${BUSYBOX_STATIC} is missing: apt-get install busybox-static`);
  const init = readFileSync(INIT_SCRIPT);
  const busybox = readFileSync(BUSYBOX_STATIC);
  // Debian's plain `busybox` package installs a dynamically linked /bin/busybox; the initramfs has no libc.
  if (isDynamicElf(busybox)) throw new Error(`${BUSYBOX_STATIC} is dynamically linked: apt-get install busybox-static`);
  const index = indexModules(kernel.modulesDir);
  const modules = {
    mmio: await moduleLoadOrder(TRANSPORT_MODULES.mmio, index),
    pci: await moduleLoadOrder(TRANSPORT_MODULES.pci, index),
  };
  // Both transports already load virtio_ring/virtio: the net list keeps only what they lack.
  const netModules = (await moduleLoadOrder(NET_MODULES, index)).filter((name) => !modules.mmio.includes(name) || !modules.pci.includes(name));
  const key = sha256(JSON.stringify({ format: 1, kernel: kernel.digest, init: sha256(init), busybox: sha256(busybox), modules, netModules })).slice(0, 16);
  const dir = join(stateDir, 'vm', 'initramfs');
  const path = join(dir, `${key}.cpio`);
  if (!existsSync(path) || statSync(path).size === 0) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.${process.pid}.partial`;
    writeFileSync(partial, writeCpioNewc(archiveEntries(init, busybox, modules, netModules, index)));
    renameSync(partial, path);
  }
  return { path, digest: `sha256:${sha256(readFileSync(path))}`, modules, netModules };
}
