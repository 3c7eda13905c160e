/**
 * Signed provenance: an OpenSSH signature (`ssh-keygen -Y sign`, namespace `sandbench-bundle`) over
 * manifest.json, stored beside it as manifest.json.sig. The manifest holds the sha256 of every other
 * file, so checking the signature and then re-hashing (`verifyBundle`) proves a key holder vouched
 * for these exact bytes. It proves nothing about how honest the measurement was or whether the
 * machine was as recorded (README, "Signed bundles").
 *
 * The signature file is outside the manifest (it is made after it). A part's signature — a shard's
 * under `shards/<i>/` in a merged bundle — is an ordinary file of the bundle, so the merged manifest
 * covers it, and `verify --signer` checks it against the part's manifest kept beside it.
 */
import { existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { UserError } from '../errors.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';

/** `ssh-keygen -n`: a signature made for another purpose (git commits, files) never verifies as a bundle's. */
export const SIGNATURE_NAMESPACE = 'sandbench-bundle';

export interface SignatureCheck {
  /** The signature file, relative to the bundle (`manifest.json.sig`, `shards/0/manifest.json.sig`). */
  signature: string;
  /** Principals of the allowed signers file whose key made it; empty when none did. */
  principals: string[];
  ok: boolean;
  /** Why it failed, in ssh-keygen's words where it has them. */
  problem?: string;
}

async function sshKeygen(args: string[], input?: Buffer) {
  try {
    return await execa('ssh-keygen', args, { reject: false, input, stripFinalNewline: false, encoding: 'buffer' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new UserError('ssh-keygen: not found; install OpenSSH (Debian: apt-get install openssh-client)');
    throw error;
  }
}

const text = (output: unknown) => Buffer.from(output as Uint8Array).toString('utf8').trim();

/** Sign the bundle's manifest with an SSH private key; returns the signature file's path. */
export async function signManifest(bundleDir: string, keyPath: string): Promise<string> {
  const manifestPath = join(bundleDir, BUNDLE_FILES.manifest);
  if (!existsSync(keyPath)) throw new UserError(`--key: ${keyPath}: no such file; give an SSH private key (ssh-keygen -t ed25519 makes one)`);
  // From stdin, ssh-keygen writes the signature to stdout: no partial .sig is ever left beside the manifest.
  const result = await sshKeygen(['-Y', 'sign', '-q', '-f', keyPath, '-n', SIGNATURE_NAMESPACE], readFileSync(manifestPath));
  if (result.exitCode !== 0) throw new UserError(`--key: ${keyPath}: ssh-keygen -Y sign failed: ${text(result.stderr) || `exit ${result.exitCode}`}`);
  const signaturePath = join(bundleDir, BUNDLE_FILES.signature);
  writeFileSync(`${signaturePath}.partial`, Buffer.from(result.stdout as Uint8Array));
  renameSync(`${signaturePath}.partial`, signaturePath);
  return signaturePath;
}

/** Check one signature over one manifest against an allowed signers file (ssh-keygen's format). */
export async function checkSignature(bundleDir: string, signature: string, allowedSigners: string): Promise<SignatureCheck> {
  const signaturePath = join(bundleDir, signature);
  const manifestPath = join(bundleDir, signature.slice(0, -'.sig'.length));
  if (!existsSync(manifestPath)) return { signature, principals: [], ok: false, problem: `no ${relative(bundleDir, manifestPath)} beside it` };
  // Which allowed principal holds the signing key; none means the key is not trusted here.
  const found = await sshKeygen(['-Y', 'find-principals', '-s', signaturePath, '-f', allowedSigners]);
  const principals = found.exitCode === 0 ? text(found.stdout).split('\n').filter(Boolean) : [];
  if (principals.length === 0) return { signature, principals, ok: false, problem: `signed by a key not in ${allowedSigners}${found.stderr.length > 0 ? ` (${text(found.stderr).split('\n')[0]})` : ''}` };
  const manifest = readFileSync(manifestPath);
  let problem = '';
  for (const principal of principals) {
    const verified = await sshKeygen(['-Y', 'verify', '-f', allowedSigners, '-I', principal, '-n', SIGNATURE_NAMESPACE, '-s', signaturePath], manifest);
    if (verified.exitCode === 0) return { signature, principals: [principal], ok: true };
    problem = text(verified.stderr).split('\n')[0] || `ssh-keygen -Y verify exit ${verified.exitCode}`;
  }
  return { signature, principals, ok: false, problem: `does not match ${relative(bundleDir, manifestPath)}: ${problem}` };
}

/** Every part's signature kept inside the bundle (`shards/<i>/manifest.json.sig`), sorted. */
export function partSignatures(bundleDir: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === BUNDLE_FILES.signature && dir !== bundleDir) found.push(relative(bundleDir, path));
    }
  };
  walk(bundleDir);
  return found;
}

/**
 * The bundle's own signature (required: an unsigned bundle fails `verify --signer`), then each
 * part's. A file change is caught by the hashes; a manifest change by the signature.
 */
export async function checkBundleSignatures(bundleDir: string, allowedSigners: string): Promise<SignatureCheck[]> {
  if (!existsSync(allowedSigners)) throw new UserError(`--signer: ${allowedSigners}: no such file; give an allowed signers file ("<principal> <key type> <public key>" per line, see ssh-keygen(1) ALLOWED SIGNERS)`);
  const own: SignatureCheck = existsSync(join(bundleDir, BUNDLE_FILES.signature))
    ? await checkSignature(bundleDir, BUNDLE_FILES.signature, allowedSigners)
    : { signature: BUNDLE_FILES.signature, principals: [], ok: false, problem: `missing: the bundle is not signed (sandbench sign ${bundleDir} --key <ssh private key>)` };
  const parts: SignatureCheck[] = [];
  for (const signature of partSignatures(bundleDir)) parts.push(await checkSignature(bundleDir, signature, allowedSigners));
  return [own, ...parts];
}
