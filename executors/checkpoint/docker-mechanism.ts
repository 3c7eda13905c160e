/**
 * `docker` checkpoint. `docker checkpoint create` needs a daemon with experimental features and a
 * CRIU that works on this kernel. The harness's private dockerd (executors/dockerd-manager.ts) is
 * shared by every docker arm and started with an empty daemon.json and no --experimental, so this
 * arm reports itself unavailable with that reason instead of restarting a shared daemon with other
 * flags. Docker's fork path (notes, section 2: `docker create` + copying the checkpoint directory +
 * `start --checkpoint`, no rootfs diff saved) is not driven by this build.
 */
import { existsSync, readFileSync } from 'node:fs';
import { execa } from 'execa';
import type { ProbeResult } from '../../harness/contracts/executor.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { dockerCli } from '../docker.ts';
import { dockerdPaths } from '../dockerd-manager.ts';
import { probeCriu } from './criu.ts';
import type { CheckpointMechanism } from './mechanism.ts';

/** Whether the harness dockerd runs (or would start) with experimental features. */
export async function harnessDockerdExperimental(): Promise<{ experimental: boolean; evidence: string }> {
  const paths = dockerdPaths(stateDir());
  const info = await execa(dockerCli(), ['-H', paths.host, 'info', '--format', '{{.ExperimentalBuild}}'], { reject: false, timeout: 15_000 });
  if (info.exitCode === 0) return { experimental: info.stdout.trim() === 'true', evidence: `docker info on ${paths.host}: ExperimentalBuild=${info.stdout.trim()}` };
  const config = existsSync(paths.configFile) ? readFileSync(paths.configFile, 'utf8') : '{}';
  const experimental = /"experimental"\s*:\s*true/.test(config);
  return { experimental, evidence: `harness dockerd not running; ${paths.configFile}: ${config.trim() || '{}'}` };
}

function unavailable(): never {
  throw new Error('docker checkpoint arm is unavailable (see its probe)');
}

export function createDockerCheckpoint(variant: string | null = null): CheckpointMechanism {
  return {
    backend: 'docker',
    variant,
    preserves: 'files+process',
    async probe(): Promise<ProbeResult> {
      const client = await execa(dockerCli(), ['--version'], { reject: false });
      if (client.exitCode !== 0) return { backend: 'docker', available: false, version: null, details: {}, reason: 'the docker client is not installed', fix: 'apt-get install docker.io' };
      const criu = await probeCriu();
      const details: Record<string, string> = { criu: criu.version ? `${criu.version} (${criu.path})` : 'not installed' };
      if (!criu.usable) return { backend: 'docker', available: false, version: client.stdout.trim(), details, reason: criu.reason, fix: criu.fix };
      const daemon = await harnessDockerdExperimental();
      details.daemon = daemon.evidence;
      if (!daemon.experimental) {
        return {
          backend: 'docker',
          available: false,
          version: client.stdout.trim(),
          details,
          reason: 'docker checkpoint needs an experimental daemon; the harness dockerd (shared by every docker arm) runs without --experimental, and this arm does not restart it with other flags',
          fix: 'start the harness dockerd with --experimental (executors/dockerd-manager.ts dockerdArgs) and CRIU >= 4.2 first in its PATH',
        };
      }
      return { backend: 'docker', available: false, version: client.stdout.trim(), details, reason: 'the daemon is experimental, but Docker\'s fork path (create + copy checkpoint dir + start --checkpoint) is not driven by this build', fix: 'extend executors/checkpoint/docker-mechanism.ts' };
    },
    prepare: async () => unavailable(),
    startParent: async () => unavailable(),
    quiesce: async () => unavailable(),
    checkpoint: async () => unavailable(),
    restore: async () => unavailable(),
    frozenDigest: async () => null,
    destroy: async () => undefined,
    discard: async () => undefined,
    teardown: async () => undefined,
  };
}
