/**
 * Everything one lazy-image run holds between trials: the two servers (content service, registry
 * behind its counting proxy), the run temp dir, the client state a cold launch leaves for its warm
 * launch, and the campaign's validity (any accounting or teardown failure invalidates the whole
 * campaign, not only the trial it happened in).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { RunContext } from '../../harness/contracts/executor.ts';
import { startContentService, type ContentService } from '../../services/lazy-content/content-service.ts';
import type { PodmanStore } from './full-client.ts';
import type { LazyMount } from './lazy-client.ts';
import { ensureOciImage, type OciImage } from '../../services/lazy-content/oci-image.ts';
import { startLocalRegistry, type LocalRegistry } from '../../services/lazy-content/registry-manager.ts';
import { ensureSquashfsImage, type SquashfsImage } from '../../services/lazy-content/squashfs-image.ts';

export const REGISTRY_REPO = 'sandbench/task';

export interface LazyCampaign {
  runDir: string;
  squashfs: SquashfsImage;
  oci: OciImage;
  content: ContentService;
  registry: LocalRegistry;
  /** Client state left by the last cold launch of each variant, consumed by its warm launch. */
  lazyMount: LazyMount | null;
  fullStore: PodmanStore | null;
  /** Sequence for per-launch directory and container names. */
  launches: number;
  /** Versions of httpfs2, mksquashfs, docker-registry, podman, bwrap (provenance on every record). */
  tools: Record<string, string>;
  /** Reasons the campaign is invalid (accounting or teardown failures); empty = valid so far. */
  invalidReasons: string[];
  tearDown(): Promise<void>;
}

const REQUIRED_TOOLS: [string, string[]][] = [
  ['httpfs2', []],
  ['mksquashfs', ['-version']],
  ['docker-registry', ['--version']],
  ['podman', ['--version']],
  ['bwrap', ['--version']],
];

/** Versions of the tools the experiment needs; throws naming the missing one and the apt package. */
export async function probeLazyTools(): Promise<Record<string, string>> {
  const versions: Record<string, string> = {};
  for (const [tool, args] of REQUIRED_TOOLS) {
    const result = await execa(tool, args, { reject: false });
    const text = `${result.stdout}\n${result.stderr}`.trim();
    if (result.failed && (result as { code?: string }).code === 'ENOENT') {
      throw new Error(`lazy-image needs ${tool}; install it: apt-get install ${tool === 'mksquashfs' ? 'squashfs-tools' : tool === 'bwrap' ? 'bubblewrap' : tool} (scripts/setup.sh --with lazy-image installs them all)`);
    }
    versions[tool] = text.split('\n').find((line) => /\d+\.\d+/.test(line))?.trim() ?? 'unknown';
  }
  return versions;
}

export async function openCampaign(run: RunContext, tools: Record<string, string>): Promise<LazyCampaign> {
  const runDir = mkdtempSync(join(tmpdir(), `sandbench-${run.runId}-lazy-`));
  const dirHandle = run.cleanup.register('tempdir', runDir, () => rmSync(runDir, { recursive: true, force: true }));
  const squashfs = await ensureSquashfsImage(run.stateDir, run.image, run.log);
  const oci = await ensureOciImage(run.stateDir, run.image, run.log);
  const content = await startContentService(squashfs.path, 'image.sqfs');
  const contentHandle = run.cleanup.register('server', `lazy content service ${content.url}`, () => content.close());
  const tag = run.image.digest.replace(/^sha256:/, '').slice(0, 16);
  const registry = await startLocalRegistry({ workDir: join(runDir, 'registry'), cleanup: run.cleanup, image: oci, repo: REGISTRY_REPO, tag });
  const proxyHandle = run.cleanup.register('server', `registry proxy ${registry.proxy.url}`, () => registry.stop());
  let closing: Promise<void> | null = null;
  const campaign: LazyCampaign = {
    runDir,
    squashfs,
    oci,
    content,
    registry,
    lazyMount: null,
    fullStore: null,
    launches: 0,
    tools,
    invalidReasons: [],
    tearDown: () => {
      closing ??= (async () => {
        const problems: string[] = [];
        const attempt = async (what: string, step: () => Promise<void>) => {
          try {
            await step();
          } catch (error) {
            problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
          }
        };
        await attempt('lazy client', async () => campaign.lazyMount?.release());
        await attempt('podman store', async () => campaign.fullStore?.release());
        await attempt('registry', () => registry.stop());
        await attempt('content service', () => content.close());
        for (const handle of [proxyHandle, contentHandle, dirHandle]) run.cleanup.forget(handle);
        rmSync(runDir, { recursive: true, force: true });
        if (problems.length > 0) throw new Error(problems.join('; '));
      })();
      return closing;
    },
  };
  return campaign;
}
