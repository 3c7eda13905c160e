/**
 * environment.json: the machine, the tools and the image a run used. `compare` and `gate` refuse to
 * compare bundles whose fingerprints differ on the keys in `fingerprint`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import type { TaskImage } from '../image/task-image.ts';
import type { ProbeResult } from '../contracts/executor.ts';
import { fixtureRoot, pathClass, type PathClass } from '../state-dir.ts';
import { fixtureFilesystem, type FixtureFilesystem } from './fixture-filesystem.ts';
import { collectHostFacts, harnessRevision, type HostFacts } from './host-facts.ts';
import { splitBuildDetails } from './build-identity.ts';

export interface EnvironmentRecord {
  schema_version: 1;
  host: HostFacts;
  accelerator: 'kvm' | 'tcg';
  harness: { commit: string | null; dirty: boolean | null; node: string };
  image: { digest: string; suite: string; packages: string[]; mirror: string; source_date_epoch: number };
  backends: Record<string, { available: boolean; version: string | null; details: Record<string, string>; image_digest: string; image: Record<string, string> | null }>;
  /**
   * Where the run's scratch (workspaces, fixtures) lived: a control, since a sandbox's policy can depend
   * on the path (issue 20), and the harness's own CPU on the filesystem under it (docs/harness-scale.md).
   */
  fixtures: { root: string; path_class: PathClass; filesystem: FixtureFilesystem };
  /** The keys compare/gate check for comparability. */
  fingerprint: { cpu_model: string; kernel: string; cores: number; image_digest: string; backend_versions: Record<string, string | null>; accelerator: string };
  /**
   * Per arm label: what the arm ran that is its own (harness/spec/arm-build.ts) — the build_*
   * probe details (binary path, sha256, version) and the arm's image digest. Deliberately outside
   * `fingerprint`: between two arms or two runs this is the intended difference, not the environment.
   */
  arms?: Record<string, ArmEnvironment>;
  /** The harness's CPU scheduling class (inherited by every launch): `chrt -f` keeps a shared host's load from preempting launches. */
  scheduling?: SchedulingFacts;
}

export interface SchedulingFacts {
  policy: string;
  rt_priority: number;
  nice: number;
}

const POLICIES = ['SCHED_OTHER', 'SCHED_FIFO', 'SCHED_RR', 'SCHED_BATCH', 'SCHED_ISO', 'SCHED_IDLE', 'SCHED_DEADLINE'];

/** From /proc/self/stat (fields after the parenthesised comm: nice is 19, rt_priority 40, policy 41). */
export function schedulingFacts(stat: string = readFileSync('/proc/self/stat', 'utf8')): SchedulingFacts | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).trim().split(/\s+/);
  const field = (n: number) => Number(fields[n - 3]);
  const policy = field(41);
  if (!Number.isInteger(policy)) return undefined;
  return { policy: POLICIES[policy] ?? `policy ${policy}`, rt_priority: field(40), nice: field(19) };
}

export interface ArmEnvironment {
  backend: string;
  variant: string | null;
  build: Record<string, string>;
  image_digest: string;
  image: Record<string, string> | null;
}

/** What run-spec knows per arm: its probe, and its own image when build.image named one. */
export interface ArmProbe {
  label: string;
  backend: string;
  variant: string | null;
  probe: ProbeResult;
  image?: TaskImage;
}

/** Per-backend facts about the imported/derived task image, keyed by backend name. */
export type BackendImageFacts = Record<string, Record<string, string> | null>;

export async function buildEnvironment(image: TaskImage, probes: ProbeResult[], imageFacts: BackendImageFacts = {}, arms: readonly ArmProbe[] = [], armImageFacts: BackendImageFacts = {}): Promise<EnvironmentRecord> {
  const host = await collectHostFacts();
  const revision = await harnessRevision();
  // The qemu probe boots a test guest before trusting KVM (/dev/kvm can open yet hang guests); its verdict wins.
  const vmProbe = probes.find((probe) => probe.details.accelerator);
  const accelerator = vmProbe ? (vmProbe.details.accelerator === 'kvm' ? 'kvm' : 'tcg') : host.kvm_device ? 'kvm' : 'tcg';
  // The backend's own identity leaves out the arms' build_* details; with several arms of a backend,
  // an arm without a build states the backend (a build.pvisor arm's version is its build's).
  const byBackend = new Map<string, ProbeResult>();
  for (const probe of probes) {
    const hasBuild = Object.keys(splitBuildDetails(probe.details).build).length > 0;
    if (!byBackend.has(probe.backend) || !hasBuild) byBackend.set(probe.backend, probe);
  }
  const backendProbes = [...byBackend.values()];
  const backends = Object.fromEntries(
    backendProbes.map((probe) => [probe.backend, { available: probe.available, version: probe.version, details: splitBuildDetails(probe.details).backend, image_digest: image.digest, image: imageFacts[probe.backend] ?? null }]),
  );
  const armRecords = Object.fromEntries(
    arms.map((arm): [string, ArmEnvironment] => [
      arm.label,
      { backend: arm.backend, variant: arm.variant, build: splitBuildDetails(arm.probe.details).build, image_digest: (arm.image ?? image).digest, image: armImageFacts[arm.label] ?? null },
    ]),
  );
  return {
    schema_version: 1,
    host,
    accelerator,
    harness: { commit: revision.commit, dirty: revision.dirty, node: process.version },
    image: { digest: image.digest, suite: image.inputs.suite, packages: image.inputs.packages, mirror: image.inputs.mirror, source_date_epoch: image.inputs.sourceDateEpoch },
    backends,
    fixtures: { root: fixtureRoot(), path_class: pathClass(fixtureRoot()), filesystem: fixtureFilesystem(fixtureRoot()) },
    fingerprint: {
      cpu_model: host.cpu_model,
      kernel: host.kernel,
      cores: host.cores,
      image_digest: image.digest,
      backend_versions: Object.fromEntries(backendProbes.map((probe) => [probe.backend, probe.version])),
      accelerator,
    },
    ...(arms.length > 0 ? { arms: armRecords } : {}),
    scheduling: schedulingFacts(),
  };
}

export async function writeEnvironment(bundleDir: string, image: TaskImage, probes: ProbeResult[], imageFacts: BackendImageFacts = {}, arms: readonly ArmProbe[] = [], armImageFacts: BackendImageFacts = {}): Promise<EnvironmentRecord> {
  const environment = await buildEnvironment(image, probes, imageFacts, arms, armImageFacts);
  writeFileSync(join(bundleDir, BUNDLE_FILES.environment), `${JSON.stringify(environment, null, 2)}\n`);
  return environment;
}
