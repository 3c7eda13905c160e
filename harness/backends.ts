/**
 * What generic code may know about a backend: its name and its traits. The ground holds no list of
 * backend names: the composition root builds a catalog from the backends' own descriptors
 * (executors/registry.ts, plus any a spec declares) and hands it down, the way SPEC_KINDS reaches the
 * spec loader. Code that needs "is this a VM?" or "does a client launch it?" reads a trait here; the
 * layer test forbids comparing with a backend name outside that backend's own file.
 */
import type { BuildBinaryField } from './spec/arm-build.ts';

/** A backend's name as arms, records and CSVs carry it (the catalog says which exist). */
export type BackendName = string;

/**
 * How a trial's process tree starts, which decides what the host can see of it:
 * - `direct`: the launcher spawns the sandbox itself, so the sandbox's processes are its children;
 * - `engine-client`: a CLI client asks an engine or runtime daemon, and the sandbox's processes are
 *   not the client's children (podman/docker: conmon, containerd-shim);
 * - `vm`: a VMM process holds a guest whose processes the host cannot see.
 */
export type LaunchStyle = 'direct' | 'engine-client' | 'vm';

/** Where a trial's resources are charged, so memory figures read the right place (issue 30). */
export type MemoryAccounting = 'cgroup' | 'process-tree';

/** What a Kubernetes pod must grant for this backend (docs/fleet.md); each is a reason line, absent = not needed. */
export interface FleetNeeds {
  privileged?: string;
  namespaces?: string;
  kvm?: string;
  /** Writable image stores a nested engine needs (emptyDir, not the container's overlay). */
  containerStorage?: boolean;
}

export interface BackendTraits {
  launch: LaunchStyle;
  /**
   * The process name (comm) of the CLI client an `engine-client` backend launches (`podman`,
   * `docker`): budget membership lists such clients apart instead of expecting them inside.
   */
  clientCommand?: string;
  /** The sandbox has no network but the one service socket a kind hands it. */
  networkIsolated: boolean;
  /** The sandbox's /tmp is its own (false: a task's /tmp is the host's, so kinds give it a private dir). */
  privateTmp: boolean;
  /** The task's processes are host processes the harness can trace (strace) and walk in /proc. */
  hostTraceable: boolean;
  /** The launch runs the task argv itself with nothing in between (so untimed prime runs of it are meaningful). */
  launchesArgvDirectly: boolean;
  /**
   * Runtime helpers that hold the sandbox's resources start outside any cgroup the harness names
   * (docker's containerd-shim, started by containerd): density adopts them into the budget at the barrier.
   */
  runtimeHelpersOutsideCgroup: boolean;
  /** The sandbox confines writes outside its workspace (false for the bare host: isolation rows say so). */
  isolatesFilesystem: boolean;
  /** Which `arms[].build` binary fields this backend honours (image applies to every backend). */
  buildFields: readonly BuildBinaryField[];
  memoryAccounting: MemoryAccounting;
  fleetNeeds: FleetNeeds;
}

/** The traits of the backends a spec may name: built in, or declared by the spec (`backends:`). */
export interface BackendTraitCatalog {
  /** Every backend this build knows by name (for "expected one of ..."). */
  readonly names: readonly string[];
  traits(name: string): BackendTraits | undefined;
}

/** Defaults for a backend that only says how it launches: a sandbox that isolates, seen from the host. */
export function sandboxTraits(overrides: Partial<BackendTraits> & Pick<BackendTraits, 'launch'>): BackendTraits {
  return {
    networkIsolated: true,
    privateTmp: true,
    hostTraceable: false,
    launchesArgvDirectly: false,
    runtimeHelpersOutsideCgroup: false,
    isolatesFilesystem: true,
    buildFields: [],
    memoryAccounting: 'cgroup',
    fleetNeeds: {},
    ...overrides,
  };
}
