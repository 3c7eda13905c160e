/**
 * Signed provenance (harness/provenance/signature.ts) with real OpenSSH keys made here: a signed
 * bundle verifies; a one-byte change to any file — the manifest and the signature included — fails;
 * so does a signature by a key outside the allowed signers, one made for another namespace, and an
 * unsigned bundle. A fleet merge keeps each shard's signature under shards/<i>/ and checks it.
 */
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FILES } from '../../../harness/bundle/layout.ts';
import { verifyBundle } from '../../../harness/provenance/manifest.ts';
import { checkBundleSignatures, signManifest } from '../../../harness/provenance/signature.ts';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { sandbench } from '../../support/cli.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const FIXTURE = join(PROJECT_ROOT, 'test', 'fixtures', 'bundles', 'shell-ready');
const dir = tempDir('sb-sign-');
const alice = join(dir, 'alice');
const mallory = join(dir, 'mallory');
const allowed = join(dir, 'allowed_signers');

async function keypair(path: string, comment: string): Promise<string> {
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', path]);
  return readFileSync(`${path}.pub`, 'utf8').trim();
}

function filesOf(bundle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) (statSync(join(d, name)).isDirectory() ? walk(join(d, name)) : found.push(relative(bundle, join(d, name))));
  };
  walk(bundle);
  return found.sort();
}

let copies = 0;
function copyOf(bundle: string): string {
  const target = join(dir, `copy-${copies++}`);
  cpSync(bundle, target, { recursive: true });
  return target;
}

/** Both checks `verify --signer` makes: every file against the manifest, the manifest against its signature. */
async function trusted(bundle: string): Promise<boolean> {
  const hashes = verifyBundle(bundle);
  const signatures = await checkBundleSignatures(bundle, allowed);
  return hashes.length === 0 && signatures.every((s) => s.ok);
}

let signed = '';

beforeAll(async () => {
  const alicePub = await keypair(alice, 'alice@lab');
  await keypair(mallory, 'mallory@elsewhere');
  // Only alice is trusted, and only for bundle signatures.
  writeFileSync(allowed, `alice@lab namespaces="sandbench-bundle" ${alicePub}\n`);
  signed = copyOf(FIXTURE);
  const result = await sandbench(['sign', signed, '--key', alice]);
  expect(result.code, result.stderr).toBe(0);
}, 60_000);

describe('sign and verify --signer', () => {
  it('a signed bundle verifies, naming the signer', async () => {
    const result = await sandbench(['verify', signed, '--signer', allowed]);
    expect(result.stdout).toContain(`${signed}: ${BUNDLE_FILES.signature}: good signature by alice@lab`);
    expect(result.stdout).toContain(`${signed}: intact, signed`);
    expect(result.code).toBe(0);
  }, 60_000);

  it('a one-byte change to any file, manifest and signature included, fails verification', async () => {
    const files = filesOf(signed);
    expect(files).toContain(BUNDLE_FILES.manifest);
    expect(files).toContain(BUNDLE_FILES.signature);
    for (const file of files) {
      const bundle = copyOf(signed);
      const path = join(bundle, file);
      const bytes = readFileSync(path);
      const at = Math.floor(bytes.length / 2);
      // A digit of a hash or a letter of a word: still well-formed, so only the checks can catch it.
      bytes[at] = bytes[at]! ^ 0x01;
      writeFileSync(path, bytes);
      expect(await trusted(bundle), file).toBe(false);
    }
  }, 120_000);

  it('the CLI names a changed manifest as a bad signature, exit 1', async () => {
    const bundle = copyOf(signed);
    const manifestPath = join(bundle, BUNDLE_FILES.manifest);
    // Rewrite the manifest as a forger would: valid JSON, every hash still right, one fact changed.
    writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace('"complete": true', '"complete": false'));
    expect(verifyBundle(bundle)).toEqual([]);
    const result = await sandbench(['verify', bundle, '--signer', allowed]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(new RegExp(`${BUNDLE_FILES.signature.replace('.', '\\.')}: bad signature: does not match manifest\\.json`));
  }, 60_000);

  it('a signature by a key not in the allowed signers fails', async () => {
    const bundle = copyOf(FIXTURE);
    await signManifest(bundle, mallory);
    const [own] = await checkBundleSignatures(bundle, allowed);
    expect(own!.ok).toBe(false);
    expect(own!.problem).toContain(`signed by a key not in ${allowed}`);
    const result = await sandbench(['verify', bundle, '--signer', allowed]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('bad signature: signed by a key not in');
  }, 60_000);

  it('a signature made for another namespace (e.g. git) by a trusted key fails', async () => {
    const bundle = copyOf(FIXTURE);
    const other = await execa('ssh-keygen', ['-Y', 'sign', '-q', '-f', alice, '-n', 'git'], { input: readFileSync(join(bundle, BUNDLE_FILES.manifest)) });
    writeFileSync(join(bundle, BUNDLE_FILES.signature), `${other.stdout}\n`);
    expect(await trusted(bundle)).toBe(false);
  }, 60_000);

  it('an unsigned bundle fails verify --signer and passes plain verify', async () => {
    const bundle = copyOf(FIXTURE);
    const strict = await sandbench(['verify', bundle, '--signer', allowed]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('bad signature: missing: the bundle is not signed (sandbench sign');
    expect((await sandbench(['verify', bundle])).code).toBe(0);
  }, 60_000);

  it('sign refuses a bundle that does not verify, and a missing key, with exit 2', async () => {
    const bundle = copyOf(FIXTURE);
    writeFileSync(join(bundle, BUNDLE_FILES.summary), 'edited\n');
    const refused = await sandbench(['sign', bundle, '--key', alice]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${BUNDLE_FILES.summary}: changed`);
    const noKey = await sandbench(['sign', copyOf(FIXTURE), '--key', join(dir, 'nope')]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--key: ');
  }, 60_000);
});

describe('a merged bundle keeps its parts\' signatures', () => {
  const spec = join(dir, 'tiny.yaml');
  const shard = (i: number) => join(dir, `shard-${i}`);
  const merged = join(dir, 'merged');

  beforeAll(async () => {
    writeFileSync(spec, 'name: sign-tiny\nexperiment: shell-ready\narms:\n  - backend: host\nwarmups: 0\ntrials: 2\nseed: 3\ntimeout: 30s\nresamples: 200\n');
    for (const i of [0, 1]) {
      const run = await sandbench(['run', spec, '--shard', `${i}/2`, '--out', shard(i)]);
      expect(run.code, run.stderr).toBe(0);
    }
    expect((await sandbench(['sign', shard(0), '--key', alice])).code).toBe(0);
    expect((await sandbench(['sign', shard(1), '--key', mallory])).code).toBe(0);
    const result = await sandbench(['merge', shard(0), shard(1), '--out', merged]);
    expect(result.code, result.stderr).toBe(0);
    expect((await sandbench(['sign', merged, '--key', alice])).code).toBe(0);
  }, 300_000);

  it('copies each shard\'s signature beside its manifest, covered by the merged manifest', () => {
    for (const i of [0, 1]) {
      expect(readFileSync(join(merged, 'shards', String(i), BUNDLE_FILES.signature))).toEqual(readFileSync(join(shard(i), BUNDLE_FILES.signature)));
      expect(readFileSync(join(merged, 'shards', String(i), BUNDLE_FILES.manifest))).toEqual(readFileSync(join(shard(i), BUNDLE_FILES.manifest)));
    }
    const manifest = JSON.parse(readFileSync(join(merged, BUNDLE_FILES.manifest), 'utf8')) as { files: Record<string, string> };
    expect(Object.keys(manifest.files)).toContain(`shards/0/${BUNDLE_FILES.signature}`);
  });

  it('verify --signer checks every part: alice\'s shard is good, mallory\'s is not', async () => {
    const result = await sandbench(['verify', merged, '--signer', allowed]);
    expect(result.stdout).toContain(`${merged}: ${BUNDLE_FILES.signature}: good signature by alice@lab`);
    expect(result.stdout).toContain(`${merged}: shards/0/${BUNDLE_FILES.signature}: good signature by alice@lab`);
    expect(result.stdout).toContain(`${merged}: shards/1/${BUNDLE_FILES.signature}: bad signature: signed by a key not in`);
    expect(result.code).toBe(1);
  }, 60_000);
});
