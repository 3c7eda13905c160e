/**
 * Agent layers: each CLI built once from the registry (scripts/build-agent-layer.sh) into
 * $SANDBENCH_HOME/agents/<agent>-<version>/ and reused by every run and backend (the VM backends
 * turn it into a cached read-only disk). A build that fails is an error naming the agent, its
 * version and the build's own message; a half-built directory never looks cached (built into a
 * temporary name, renamed when complete).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { withLock } from '../../harness/image/file-lock.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { AgentCli } from './agents.ts';

export const BUILD_SCRIPT = join(PROJECT_ROOT, 'scripts', 'build-agent-layer.sh');
/**
 * Bump when the layer layout or an agent's recipe in the build script changes: old caches are then
 * rebuilt. The cache is keyed by agent, version and this format, not by the script's digest, so
 * adding one agent's recipe never rebuilds (and re-downloads) every other layer; the digest the
 * layer was built with is recorded in layer.json.
 */
const LAYER_FORMAT = 1;

const LayerMetaSchema = z.object({
  format: z.literal(LAYER_FORMAT),
  agent: z.string(),
  version: z.string(),
  /** The CLI's own `--version` output, as built. */
  reported_version: z.string(),
  build_script_sha256: z.string(),
  built_at: z.string(),
  build_ms: z.number(),
});
export type LayerMeta = z.infer<typeof LayerMetaSchema>;

export interface AgentLayer {
  agent: AgentCli;
  /** Host directory holding bin/<cli>. */
  dir: string;
  /** Cache key for copies of the layer (VM disks): agent, version, build script. */
  contentKey: string;
  meta: LayerMeta;
}

/** A layer that could not be built; the message names agent, version and the cause. */
export class AgentLayerError extends Error {}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function layerDir(stateDir: string, agent: AgentCli): string {
  return join(stateDir, 'agents', `${agent.name}-${agent.version}`);
}

function loadMeta(dir: string, agent: AgentCli): LayerMeta | null {
  try {
    const meta = LayerMetaSchema.parse(JSON.parse(readFileSync(join(dir, 'layer.json'), 'utf8')));
    return meta.agent === agent.name && meta.version === agent.version ? meta : null;
  } catch {
    return null;
  }
}

function asLayer(agent: AgentCli, dir: string, meta: LayerMeta): AgentLayer {
  // The built layer's own identity: a rebuild (new format, new digest) gets a new key, so VM disks follow.
  return { agent, dir, meta, contentKey: `agent-${agent.name}-${agent.version}-f${meta.format}-${meta.build_script_sha256.slice(0, 12)}` };
}

/** The cached layer, or null (no network, no build): what `doctor`-style checks use. */
export function cachedLayer(stateDir: string, agent: AgentCli): AgentLayer | null {
  const dir = layerDir(stateDir, agent);
  const meta = loadMeta(dir, agent);
  return meta ? asLayer(agent, dir, meta) : null;
}

/** The layer of `agent`, built from the registry the first time (hundreds of MB; minutes). */
export async function ensureLayer(stateDir: string, agent: AgentCli, log: (message: string) => void): Promise<AgentLayer> {
  const scriptDigest = sha256(readFileSync(BUILD_SCRIPT));
  const dir = layerDir(stateDir, agent);
  const cached = loadMeta(dir, agent);
  if (cached) return asLayer(agent, dir, cached);
  mkdirSync(join(stateDir, 'agents'), { recursive: true });
  return withLock(`${dir}.lock`, async () => {
    const again = loadMeta(dir, agent);
    if (again) return asLayer(agent, dir, again);
    log(`agent layer ${agent.name} ${agent.version}: building from the registry`);
    const partial = `${dir}.${process.pid}.partial`;
    rmSync(partial, { recursive: true, force: true });
    const started = Date.now();
    const result = await execa(BUILD_SCRIPT, [agent.name, agent.version, partial], { reject: false, timeout: 20 * 60_000, all: true });
    if (result.exitCode !== 0) {
      rmSync(partial, { recursive: true, force: true });
      const tail = (result.all ?? '').trim().split('\n').slice(-3).join(' | ');
      throw new AgentLayerError(`agent layer ${agent.name} ${agent.version} failed to build (${BUILD_SCRIPT} exit ${result.exitCode ?? result.signal}): ${tail || 'no output'}; is the npm registry reachable?`);
    }
    const meta: LayerMeta = {
      format: LAYER_FORMAT,
      agent: agent.name,
      version: agent.version,
      reported_version: readFileSync(join(partial, 'version.txt'), 'utf8').trim(),
      build_script_sha256: scriptDigest,
      built_at: new Date().toISOString(),
      build_ms: Date.now() - started,
    };
    writeFileSync(join(partial, 'layer.json'), `${JSON.stringify(meta, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
    if (!existsSync(join(dir, 'bin', agent.name))) throw new AgentLayerError(`agent layer ${agent.name} ${agent.version}: bin/${agent.name} missing after the build`);
    return asLayer(agent, dir, meta);
  });
}
