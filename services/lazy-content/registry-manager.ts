/**
 * The full-pull baseline's server side: Debian's docker-registry (distribution 2.8) started by the
 * harness on 127.0.0.1 with its own no-auth config and filesystem storage in a run temp dir (the
 * packaged config uses htpasswd), the task image pushed through the registry API, and a counting
 * proxy in front that clients pull through. Stopped and proven gone at teardown.
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import type { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { startCountingProxy, type CountingProxy } from './counting-proxy.ts';
import { RUN_ID_ENV } from '../../harness/run/cleanup-registry.ts';
import { processAlive } from './mount-table.ts';
import { OCI_MANIFEST_TYPE, type OciBlob, type OciImage } from './oci-image.ts';

const READY_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 5000;

export interface LocalRegistry {
  /** Counting proxy clients pull through. */
  proxy: CountingProxy;
  /** `127.0.0.1:<proxy port>/<repo>:<tag>`: the reference clients pull. */
  reference: string;
  registryPid: number;
  /** Stop proxy and registry; throws if the registry is still alive afterwards. Idempotent. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function registryConfig(port: number, storageDir: string): string {
  // YAML is a superset of JSON: no serializer needed for a config this small.
  return JSON.stringify({
    version: 0.1,
    log: { level: 'error', accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: storageDir }, delete: { enabled: true } },
    http: { addr: `127.0.0.1:${port}`, secret: 'sandbench-local-only' },
  });
}

interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(base: string, method: string, path: string, headers: Record<string, string | number> = {}, body?: Buffer | string | { file: string }): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body && typeof body === 'object' && 'file' in body) createReadStream(body.file).on('error', reject).pipe(req);
    else req.end(body);
  });
}

async function pushBlob(base: string, repo: string, blob: OciBlob): Promise<void> {
  const head = await call(base, 'HEAD', `/v2/${repo}/blobs/${blob.digest}`);
  if (head.status === 200) return;
  const start = await call(base, 'POST', `/v2/${repo}/blobs/uploads/`, { 'Content-Length': 0 });
  const location = start.headers.location;
  if (start.status !== 202 || typeof location !== 'string') throw new Error(`registry refused an upload: ${start.status} ${start.body}`);
  const target = new URL(location, base);
  target.searchParams.set('digest', blob.digest);
  const put = await call(base, 'PUT', `${target.pathname}${target.search}`, { 'Content-Type': 'application/octet-stream', 'Content-Length': blob.size }, { file: blob.path });
  if (put.status !== 201) throw new Error(`blob ${blob.digest} upload failed: ${put.status} ${put.body}`);
}

/** Monolithic uploads of every blob, then the manifest (distribution API v2). */
export async function pushOciImage(base: string, repo: string, tag: string, image: OciImage): Promise<void> {
  for (const blob of [image.config, ...image.layers]) await pushBlob(base, repo, blob);
  const put = await call(base, 'PUT', `/v2/${repo}/manifests/${tag}`, { 'Content-Type': OCI_MANIFEST_TYPE, 'Content-Length': Buffer.byteLength(image.manifestJson) }, image.manifestJson);
  if (put.status !== 201) throw new Error(`manifest push failed: ${put.status} ${put.body}`);
  const digest = put.headers['docker-content-digest'];
  if (digest !== image.manifestDigest) throw new Error(`registry stored manifest ${String(digest)}, expected ${image.manifestDigest}`);
}

async function waitReady(base: string, child: ResultPromise): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exited = false;
  void child.then(() => (exited = true), () => (exited = true));
  for (;;) {
    const answer = await call(base, 'GET', '/v2/').catch(() => null);
    if (answer?.status === 200) return;
    if (exited) throw new Error(`docker-registry exited during start: ${String((await child).stderr).trim().slice(-500)}`);
    if (Date.now() > deadline) throw new Error('docker-registry did not answer /v2/ in time');
    await sleep(50);
  }
}

export interface RegistryOptions {
  /** Run temp dir owned by the caller (config and storage go below it). */
  workDir: string;
  cleanup: CleanupRegistry;
  image: OciImage;
  repo: string;
  tag: string;
}

export async function startLocalRegistry(options: RegistryOptions): Promise<LocalRegistry> {
  const storage = join(options.workDir, 'storage');
  mkdirSync(storage, { recursive: true });
  const port = await freePort();
  const configPath = join(options.workDir, 'config.yml');
  writeFileSync(configPath, registryConfig(port, storage));
  const child = execa('docker-registry', ['serve', configPath], { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe', reject: false, cleanup: true, env: { [RUN_ID_ENV]: options.cleanup.runId } });
  const pid = child.pid;
  if (pid === undefined) throw new Error('docker-registry did not start');
  let proxy: CountingProxy | null = null;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      await proxy?.close();
      child.kill('SIGTERM');
      const done = child.then(() => undefined, () => undefined);
      if ((await Promise.race([done, sleep(STOP_GRACE_MS).then(() => 'timeout' as const)])) === 'timeout') {
        child.kill('SIGKILL');
        await done;
      }
      if (processAlive(pid)) throw new Error(`docker-registry ${pid} still running after stop`);
    })();
    return stopping;
  };
  const handle = options.cleanup.register('daemon', `docker-registry ${pid} 127.0.0.1:${port}`, stop);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitReady(base, child);
    await pushOciImage(base, options.repo, options.tag, options.image);
    proxy = await startCountingProxy({ host: '127.0.0.1', port });
  } catch (error) {
    options.cleanup.forget(handle);
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    proxy,
    reference: `127.0.0.1:${proxy.port}/${options.repo}:${options.tag}`,
    registryPid: pid,
    stop: async () => {
      options.cleanup.forget(handle);
      await stop();
    },
  };
}
