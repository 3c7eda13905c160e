/**
 * The guest kernel: Debian's cloud kernel package (`linux-image-cloud-amd64` depends on the current
 * `linux-image-<abi>-cloud-amd64`), fetched with `apt-get download` and unpacked with `dpkg-deb -x`,
 * cached under $SANDBENCH_HOME/vm/kernel/<package version>/ with the vmlinuz sha256 recorded.
 * The cloud flavour is small and builds virtio and overlayfs as modules (backend-notes: "QEMU").
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { sha256File } from '../../harness/image/ensure-image.ts';
import { withLock } from '../../harness/image/file-lock.ts';

export const KERNEL_META_PACKAGE = 'linux-image-cloud-amd64';

export const GuestKernelSchema = z.object({
  /** Binary package unpacked, e.g. linux-image-6.1.0-57-cloud-amd64. */
  packageName: z.string(),
  /** Debian package version, e.g. 6.1.192-3. */
  packageVersion: z.string(),
  /** Kernel release (modules directory name), e.g. 6.1.0-57-cloud-amd64. */
  release: z.string(),
  dir: z.string(),
  vmlinuzPath: z.string(),
  modulesDir: z.string(),
  /** sha256:<hex> of the vmlinuz file. */
  digest: z.string(),
  /** sha256:<hex> of the .deb it came from. */
  debDigest: z.string(),
});
export type GuestKernel = z.infer<typeof GuestKernelSchema>;

export function kernelCacheRoot(stateDir: string): string {
  return join(stateDir, 'vm', 'kernel');
}

/** The binary package `linux-image-cloud-amd64` currently depends on, per apt's package lists. */
export async function resolveKernelPackage(): Promise<string | null> {
  const result = await execa('apt-cache', ['depends', KERNEL_META_PACKAGE], { reject: false });
  if (result.exitCode !== 0) return null;
  const match = /Depends:\s+(linux-image-\S+-cloud-amd64)/.exec(result.stdout);
  return match ? match[1]! : null;
}

function loadCached(dir: string): GuestKernel | null {
  const metaPath = join(dir, 'kernel.json');
  if (!existsSync(metaPath)) return null;
  try {
    const kernel = GuestKernelSchema.parse(JSON.parse(readFileSync(metaPath, 'utf8')));
    return existsSync(kernel.vmlinuzPath) && existsSync(kernel.modulesDir) ? kernel : null;
  } catch {
    return null;
  }
}

/** Every intact cached kernel, newest package version first (used when apt cannot answer). */
export function cachedKernels(stateDir: string): GuestKernel[] {
  const root = kernelCacheRoot(stateDir);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => !name.endsWith('.lock') && !name.endsWith('.partial'))
    .map((name) => loadCached(join(root, name)))
    .filter((kernel): kernel is GuestKernel => kernel !== null)
    .sort((a, b) => b.packageVersion.localeCompare(a.packageVersion, 'en', { numeric: true }));
}

async function packageVersion(packageName: string): Promise<string> {
  const { stdout } = await execa('apt-cache', ['show', '--no-all-versions', packageName]);
  const match = /^Version:\s+(\S+)/m.exec(stdout);
  if (!match) throw new Error(`apt-cache show ${packageName} printed no Version`);
  return match[1]!;
}

async function downloadAndUnpack(packageName: string, version: string, dir: string): Promise<GuestKernel> {
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // As root apt warns that the download runs unsandboxed (the _apt user cannot write here): harmless.
  await execa('apt-get', ['download', `${packageName}=${version}`], { cwd: partial, stdio: ['ignore', 'pipe', 'pipe'] });
  const deb = readdirSync(partial).find((name) => name.endsWith('.deb'));
  if (!deb) throw new Error(`apt-get download ${packageName} produced no .deb`);
  const debPath = join(partial, deb);
  const debDigest = `sha256:${await sha256File(debPath)}`;
  const tree = join(partial, 'tree');
  await execa('dpkg-deb', ['-x', debPath, tree]);
  rmSync(debPath);
  const release = readdirSync(join(tree, 'lib', 'modules'))[0];
  if (!release) throw new Error(`${packageName} holds no lib/modules/<release>`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  const vmlinuzPath = join(dir, 'tree', 'boot', `vmlinuz-${release}`);
  const kernel: GuestKernel = {
    packageName,
    packageVersion: version,
    release,
    dir,
    vmlinuzPath,
    modulesDir: join(dir, 'tree', 'lib', 'modules', release),
    digest: `sha256:${await sha256File(vmlinuzPath)}`,
    debDigest,
  };
  writeFileSync(join(dir, 'kernel.json'), `${JSON.stringify(kernel, null, 2)}\n`);
  return kernel;
}

/**
 * The cached guest kernel for the package apt currently offers, fetched first when missing.
 * Without apt lists (offline) the newest cached kernel is used; with neither, a clear error.
 */
export async function ensureGuestKernel(stateDir: string, log: (message: string) => void = () => undefined): Promise<GuestKernel> {
  const packageName = await resolveKernelPackage();
  if (!packageName) {
    const cached = cachedKernels(stateDir)[0];
    if (cached) return cached;
    throw new Error(`apt-cache knows no ${KERNEL_META_PACKAGE}: run apt-get update (the guest kernel comes from Debian's cloud kernel package)`);
  }
  const version = await packageVersion(packageName);
  const dir = join(kernelCacheRoot(stateDir), version);
  const cached = loadCached(dir);
  if (cached) return cached;
  mkdirSync(kernelCacheRoot(stateDir), { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    const again = loadCached(dir);
    if (again) return again;
    log(`fetching guest kernel ${packageName} ${version} with apt-get download`);
    return downloadAndUnpack(packageName, version, dir);
  });
}

/** Cached kernel for probe(): never downloads. */
export function peekGuestKernel(stateDir: string): GuestKernel | null {
  return cachedKernels(stateDir)[0] ?? null;
}
