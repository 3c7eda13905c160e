/**
 * `docker`: the same task image imported into a Docker engine, one `docker run --rm` per trial with
 * no network and the same rlimits as Podman. The engine is the one named by --docker-host /
 * DOCKER_HOST (used as is, never stopped), else a private harness dockerd (dockerd-manager.ts).
 * With a budget, the container goes below --cgroup-parent but its containerd shim stays outside
 * it; containerPids() returns the shim so the density check can see and report that.
 */
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { z } from 'zod';
import type { ResourceHandle } from '../harness/run/cleanup-registry.ts';
import type { ProbeResult, RunContext } from '../harness/contracts/executor.ts';
import { createContainerExecutor, firstLine, type ContainerEngine, type ContainerExecutor } from './container-common.ts';
import { acquireDockerd, dockerdPaths, engineAnswers, type DockerdLease } from './dockerd-manager.ts';
import { stateDir } from '../harness/state-dir.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import { buildBinaryDetails } from '../harness/provenance/build-identity.ts';
import { dockerRuntimeName, registerDockerRuntime } from './docker-runtime.ts';

/** The distribution's client matches the distribution's daemon (20.10, API 1.41); /usr/local/bin may hold a newer CLI. */
export function dockerCli(): string {
  return existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker';
}

const versionSchema = z.object({
  Client: z.object({ Version: z.string(), ApiVersion: z.string() }),
  Server: z
    .object({
      Version: z.string(),
      ApiVersion: z.string(),
      Components: z.array(z.object({ Name: z.string(), Version: z.string() })).nullish(),
    })
    .nullish(),
});
type DockerVersion = z.infer<typeof versionSchema>;

async function engineVersion(cli: string, host: string): Promise<DockerVersion | null> {
  const result = await execa(cli, ['-H', host, 'version', '--format', '{{json .}}'], { reject: false, timeout: 15_000 });
  if (result.exitCode !== 0) return null;
  const parsed = versionSchema.safeParse(JSON.parse(result.stdout));
  return parsed.success && parsed.data.Server ? parsed.data : null;
}

function versionDetails(version: DockerVersion): Record<string, string> {
  const details: Record<string, string> = {
    client: `${version.Client.Version} (API ${version.Client.ApiVersion})`,
    daemon: `${version.Server!.Version} (API ${version.Server!.ApiVersion})`,
  };
  for (const component of version.Server!.Components ?? []) {
    if (component.Name === 'containerd' || component.Name === 'runc') details[component.Name] = component.Version;
  }
  return details;
}

function externalHost(configured: string | undefined): string | undefined {
  return configured ?? (process.env.DOCKER_HOST || undefined);
}

async function probeDocker(configuredHost: string | undefined): Promise<ProbeResult> {
  const cli = dockerCli();
  const client = await firstLine([cli, '--version']);
  if (!client) return { backend: 'docker', available: false, version: null, details: {}, reason: 'the docker client is not installed', fix: 'apt-get install docker.io' };
  const external = externalHost(configuredHost);
  const host = external ?? dockerdPaths(stateDir()).host;
  const version = await engineVersion(cli, host);
  if (version) {
    const details = { ...versionDetails(version), client_path: cli, engine: external ? `${external} (given; never stopped by sandbench)` : `harness dockerd on ${host} (already running)` };
    return { backend: 'docker', available: true, version: `docker ${version.Server!.Version}`, details };
  }
  if (external) {
    return { backend: 'docker', available: false, version: null, details: { client }, reason: `no Docker engine answers at ${external}`, fix: 'start that engine, or unset DOCKER_HOST/--docker-host to let sandbench start a private dockerd' };
  }
  const dockerd = await firstLine(['dockerd', '--version']);
  const containerd = await firstLine(['containerd', '--version']);
  const runc = await firstLine(['runc', '--version']);
  const details = { client, client_path: cli, dockerd: dockerd ?? 'not installed', containerd: containerd ?? 'not installed', runc: runc ?? 'not installed', engine: `private dockerd, started per run on ${host}` };
  const missing = [dockerd ? null : 'dockerd', containerd ? null : 'containerd', runc ? null : 'runc'].filter(Boolean);
  if (missing.length > 0) return { backend: 'docker', available: false, version: null, details, reason: `no engine answers and ${missing.join(', ')} missing`, fix: 'apt-get install docker.io containerd runc' };
  if (process.getuid?.() !== 0) return { backend: 'docker', available: false, version: null, details, reason: 'no engine answers and a private dockerd needs root', fix: 'run as root or set DOCKER_HOST to a running engine' };
  const daemonVersion = /version ([^\s,]+)/.exec(dockerd ?? '')?.[1] ?? 'unknown';
  return { backend: 'docker', available: true, version: `docker ${daemonVersion}`, details };
}

export interface DockerExecutor extends ContainerExecutor {
  /** The private dockerd lease of this run; null with an external engine or before prepare(). */
  dockerdLease(): DockerdLease | null;
}

export function createDockerExecutor(variant: string | null = null, options: { dockerHost?: string; build?: ArmBuild } = {}): DockerExecutor {
  const runtime = options.build?.runtime;
  const cli = dockerCli();
  let lease: DockerdLease | null = null;
  let daemonHandle: ResourceHandle | null = null;
  let runContext: RunContext | null = null;

  const start = async (run: RunContext): Promise<ContainerEngine> => {
    runContext = run;
    const external = externalHost(run.options.dockerHost ?? options.dockerHost);
    let host: string;
    if (external) {
      if (runtime) throw new Error(`build.runtime ${runtime}: a runtime is registered in sandbench's private dockerd, not in the engine at ${external}; unset DOCKER_HOST/--docker-host, or register it there and drop build.runtime`);
      if (!(await engineAnswers(cli, external))) throw new Error(`no Docker engine answers at ${external}`);
      host = external;
    } else {
      lease = await acquireDockerd({ stateDir: run.stateDir, runId: run.runId, cli, log: run.log });
      const held = lease;
      daemonHandle = run.cleanup.register('daemon', `dockerd ${held.paths.socket}`, async () => void (await held.release()));
      host = held.host;
      if (runtime) await registerDockerRuntime(held.paths, cli, runtime);
    }
    const version = await engineVersion(cli, host);
    if (!version) throw new Error(`docker engine at ${host} answered once, then not: cannot read its version`);
    // Pin the client to the daemon's API (a newer CLI would otherwise negotiate on every call).
    return { kind: 'docker', cli, globalArgs: ['-H', host], env: { DOCKER_API_VERSION: version.Server!.ApiVersion } };
  };

  const stop = async () => {
    // Only a lease we took is released; an external engine is never touched.
    if (daemonHandle && runContext) await runContext.cleanup.release(daemonHandle);
    daemonHandle = null;
  };

  const probe = async () => {
    const result = await probeDocker(options.dockerHost);
    return result.available && options.build ? { ...result, details: { ...result.details, ...(await buildBinaryDetails(options.build)) } } : result;
  };
  const executor = createContainerExecutor({ backend: 'docker', variant, probe, start, stop, runtime: runtime ? dockerRuntimeName(runtime) : undefined });
  return { ...executor, dockerdLease: () => lease };
}

/** For `sandbench clean`: the harness dockerd of this state dir as an engine handle, when it answers. */
export async function harnessDockerEngine(stateDirectory: string): Promise<ContainerEngine | null> {
  const cli = dockerCli();
  const host = dockerdPaths(stateDirectory).host;
  return (await engineAnswers(cli, host)) ? { kind: 'docker', cli, globalArgs: ['-H', host], env: {} } : null;
}
