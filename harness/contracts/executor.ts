/**
 * The narrow executor contract (architecture doc, "Executor contract"). One file per backend
 * implements it; the trial loop in harness/run only talks to this interface.
 */
import type { TaskImage } from '../image/task-image.ts';
import type { CleanupRegistry } from '../run/cleanup-registry.ts';

import type { BackendName, BackendTraits } from '../backends.ts';
export type { BackendName, BackendTraits } from '../backends.ts';

/** What `doctor` prints and `environment.json` records for one backend. */
export interface ProbeResult {
  backend: BackendName;
  available: boolean;
  /** Main version string (e.g. "podman 4.3.1"); null when unavailable. */
  version: string | null;
  /** Further tool versions and facts (runc, accelerator, kernel digest...). */
  details: Record<string, string>;
  /** Why not available, one line. */
  reason?: string;
  /** What to run to fix it, one line. */
  fix?: string;
  /**
   * The backend is there but a real tiny sandbox start with this arm's build failed (e.g. crun on a
   * cgroup v1 hybrid host): `run` refuses the arm before its first trial, unless --keep-going.
   */
  startFailed?: boolean;
}

/**
 * Probe detail keys that hold a measurement taken at run start (the launcher's calibrated no-op
 * floor) rather than an identity of the backend: recorded for the reader, never part of the
 * comparability fingerprint compare and gate check (two runs of one build always differ in them).
 */
export const MEASURED_DETAIL_KEYS: readonly string[] = ['launcher_floor_median_ms', 'launcher_floor_mad_ms', 'launcher_floor_n', 'launcher_floor_failures'];

/** Resources and facts shared by all trials of one run. */
export interface RunContext {
  runId: string;
  image: TaskImage;
  /** $SANDBENCH_HOME: caches and per-run scratch live below it. */
  stateDir: string;
  cleanup: CleanupRegistry;
  log: (message: string) => void;
  options: ExecutorOptions;
}

export interface ExecutorOptions {
  /** Use this Docker engine instead of starting a private dockerd (never stopped by us). */
  dockerHost?: string;
  /** Guest memory for VMs, MiB. */
  vmMemoryMiB?: number;
}

/** CPU/memory controls applied to every launched tree of a trial. */
export interface TrialControls {
  /** CPU affinity list, e.g. "0,1"; null = no pinning. */
  cpus: string | null;
  /** Memory limit in MiB (containers: --memory; VMs: guest RAM); null = none. */
  memoryMiB: number | null;
  /** VMs under TCG: translation-cache size, MiB (`-accel tcg,tb-size=`); absent = the executor's default. */
  tcgTbSizeMiB?: number;
  /** VM CPU model under emulation (`qemu64`, `max`); absent/null = the accelerator's default. Other backends ignore it. */
  cpuModel?: string | null;
}

/**
 * A shared resource budget (density batches). Directly spawned trees enter it through
 * `enterArgv` (a prefix that moves the process into the cgroups before exec, so descendants
 * inherit); container runtimes get `cgroupParent` (--cgroup-parent with the cgroupfs manager).
 */
export interface BudgetPlacement {
  enterArgv: string[];
  cgroupParent: string;
  /** cgroup version of the budget: runtimes need to know for path syntax. */
  cgroupVersion: 1 | 2;
  /**
   * Container CLI clients (`podman run`, `docker run`): 'outside' the budget (only the container and
   * its runtime helper are inside), or 'inside' (the client enters through `enterArgv` too, so its
   * memory is charged to the batch, as a launcher's would be). A density control: a client holds
   * ~9 MiB anonymous memory per container here, which decides capacity at N = 128.
   */
  clients: 'outside' | 'inside';
}

export interface TrialContext {
  run: RunContext;
  trialId: string;
  /** Host directory with the baseline workspace; staging backends must never write it. */
  baselineWorkspace: string;
  /** Per-trial scratch directory owned by the harness (removed after the trial). */
  trialDir: string;
  timeoutMs: number;
  controls: TrialControls;
  budget: BudgetPlacement | null;
}

/** The command to run inside the sandbox, with /workspace as working directory. */
export interface TaskCommand {
  argv: string[];
  env: Record<string, string>;
  /** 'pipe' keeps stdin open for barrier messages (density GO). */
  stdin: 'pipe' | 'none';
  /** Host directories shown read-only inside the sandbox (tool layers); targets below SANDBOX_MOUNT_ROOT. */
  mounts?: SandboxMount[];
  /** One host service the task may reach; every other destination stays unreachable. */
  service?: ServiceEndpoint;
  /** Untimed runs of argv right before the timed launch (hyperfine's --warmup), for a command that may repeat; backends that launch argv directly honour it and record `timing.prime_runs`. */
  primeRuns?: number;
}

/** Extra mounts live below this directory inside every sandbox (VM guests mount a tmpfs there). */
export const SANDBOX_MOUNT_ROOT = '/run/sandbench';

export interface SandboxMount {
  /** Host directory. */
  source: string;
  /** Absolute path inside the sandbox, below SANDBOX_MOUNT_ROOT. The host backend has no mount
   *  namespace: it rewrites argv words and env values that start with a target to the source. */
  target: string;
  /** Stable identity of the source's content (version or digest): backends that copy it into an
   *  image (VM disks) cache the copy under this key, so it must change when the content does. */
  contentKey: string;
}

/**
 * A host service on a Unix socket. Inside the sandbox the task finds it through the environment:
 * `SANDBENCH_SERVICE_URL=http://HOST:PORT` when the backend gives a direct TCP path (host: the
 * service's own TCP listener; VMs: a guestfwd to the socket), otherwise
 * `SANDBENCH_SERVICE_SOCKET=<path inside>` (namespaces, containers: the socket bind-mounted at
 * SANDBOX_MOUNT_ROOT/<name>.sock, for an in-sandbox TCP forwarder the task starts itself).
 */
export interface ServiceEndpoint {
  /** Short name ([a-z0-9-]+): the socket's file name inside the sandbox. */
  name: string;
  /** Host path of the listening Unix socket. */
  socketPath: string;
  /** The service's loopback TCP listener on the host, if it has one (used by the host backend only). */
  tcp?: { host: string; port: number };
}

/** Where the sandbox's /workspace lives on the host, and whether the backend claims to stage writes. */
export interface WorkspaceBinding {
  /** Host directory whose bytes must stay unchanged when claimsStaging is true. */
  hostPath: string;
  claimsStaging: boolean;
}

export interface OutputLine {
  stream: 'stdout' | 'stderr';
  text: string;
  /** process.hrtime.bigint() when the chunk holding the line was read. */
  tNs: bigint;
}

export interface ExitInfo {
  /** The task's exit code (for VMs parsed from REFERENCE_EXIT); null if it never reported one. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  tExitNs: bigint;
  /** Backend-specific failure detected by the adapter (e.g. "vm exited without REFERENCE_EXIT"). */
  infraFailure?: { category: 'setup_failed' | 'isolation_refused' | 'recording_failed' | 'upstream_failed' | 'oom' | 'killed_externally'; reason: string };
}

export interface RunningTrial {
  /** process.hrtime.bigint() taken immediately before spawn. */
  tSpawnNs: bigint;
  /** Every line so far, in arrival order. */
  readonly lines: readonly OutputLine[];
  /** Called for each new line (and replays lines already received). */
  onLine(listener: (line: OutputLine) => void): void;
  writeStdin(text: string): void;
  closeStdin(): void;
  exit: Promise<ExitInfo>;
  /** Kill the whole launched tree (process group, container, VM). Idempotent. */
  kill(reason: string): Promise<void>;
  /** Host PIDs of the launched tree's root processes (for budget membership checks). */
  rootPids(): number[];
  /** How this launch was timed (the trial record's `facts.timing`). */
  timing?: TimingPath;
}

/**
 * Which clock path stamped a launch (issue 14): the native launcher (pre-vfork, epoll and waitid
 * stamps, with its no-op floor measured at run start) or Node's own spawn (the fallback, with why).
 */
export interface TimingPath {
  path: 'launcher' | 'node';
  fallback_reason?: string;
  /** Median / MAD of the run-start no-op launches through the launcher, ms, and how many. */
  floor_median_ms?: number;
  floor_mad_ms?: number;
  floor_n?: number;
  /** Launcher: untimed no-op launches run right before this launch's stamp (0 when it followed other work). */
  warmup_launches?: number;
  /** Untimed runs of the task's own command right before the stamp, when the kind asked for them (command.prime_runs). */
  prime_runs?: number;
}

/** What the task changed, relative to /workspace. */
export interface CandidateFiles {
  /** Relative paths created, modified or deleted (deleted ones end with " (deleted)"). */
  changed: string[];
  /** Read a candidate file's new content; null when absent. */
  read(relativePath: string): Promise<Buffer | null>;
  /** Extra facts for the trial record (e.g. container diff output, upper dir path). */
  facts: Record<string, unknown>;
}

export interface Executor {
  readonly backend: BackendName;
  /** The backend's traits (harness/backends.ts), from its descriptor: what generic code may ask of it. */
  readonly traits: BackendTraits;
  readonly variant: string | null;
  probe(): Promise<ProbeResult>;
  /** Once per run, outside timing: import the image, start a daemon, build disks. */
  prepare(run: RunContext): Promise<void>;
  /** Per trial, outside timing (reported as prepare_ms): make the workspace the sandbox will see. */
  stageWorkspace(trial: TrialContext): Promise<WorkspaceBinding>;
  /** Start the task. tSpawnNs must be taken immediately before the spawn. */
  launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial>;
  /** After exit: what the task changed. */
  collect(trial: TrialContext, binding: WorkspaceBinding): Promise<CandidateFiles>;
  /** Remove every per-trial resource (container, mount, scratch disk). Idempotent. */
  finishTrial(trial: TrialContext): Promise<void>;
  /** End of run: stop what prepare started (a private dockerd...). Idempotent. */
  teardown(): Promise<void>;
  /** After prepare: how this backend holds the task image (engine image id, layer digest, VM disk digest). */
  imageFacts?(): Record<string, string> | null;
}

/** What a backend's `create()` returns: an executor before the catalog attaches its descriptor's traits. */
export type ExecutorImplementation = Omit<Executor, 'traits'>;
