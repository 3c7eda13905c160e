/**
 * Checkpoint/fork mechanisms: an optional capability next to the narrow Executor contract. A
 * mechanism starts a parent sandbox running the kind's state process, checkpoints it, and restores
 * K children from the one checkpoint. It says what it preserves (files only, or files + process
 * state) and whether the parent is paused while the checkpoint is taken; the kind judges whether
 * that claim held. One module per backend under executors/checkpoint/.
 */
import type { BackendName, BudgetPlacement, ProbeResult, RunContext, SandboxMount, ServiceEndpoint } from '../../harness/contracts/executor.ts';

export type Preserved = 'files' | 'files+process';

/** A command for the state program: argv and environment, run with the workspace as cwd. */
export interface ProgramCommand {
  argv: string[];
  env: Record<string, string>;
}

/** How the kind's state process is started and reached (the kind owns the program). */
export interface StateProgram {
  /**
   * Inside the sandbox, stdio protocol (requests on stdin); `python` is the interpreter path there.
   * `lineMax`: the transport's longest line (a VM serial console splits longer ones); a program
   * whose answers can be longer splits them into continuation lines (line-channel.ts), else it may ignore it.
   */
  stdio(workspace: string, python?: string, lineMax?: number): ProgramCommand;
  /** Inside the sandbox, listening on 127.0.0.1:port (network-namespace sandboxes). */
  tcp(workspace: string, port: number): ProgramCommand;
  /** On the host, run inside the sandbox's netns, relaying stdin lines to the tcp server. */
  relay(port: number): ProgramCommand;
  /** Prefix of every answer line; anything else on stdout is noise (kernel lines on a VM console). */
  answerPrefix: string;
}

/** One JSON request → one JSON answer, in order. */
export interface StateChannel {
  request(message: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves on the first answer line (the program's `ready` greeting or the first reply). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface Sandbox {
  id: string;
  channel: StateChannel;
  /** Host pids whose process trees make up the sandbox (PSS is summed over them). */
  pids(): Promise<number[]>;
  /** Facts for the trial record (container name, VM name, stage path). */
  facts: Record<string, unknown>;
  /** hrtime when this child's own restore began, when the mechanism queued it behind siblings (pVisor). */
  startedNs?: bigint;
}

export interface CheckpointImage {
  /** Bytes of the frozen files (layer, copy, qcow2 base, export's rootfs diff). */
  diskBytes: number;
  /** Bytes of the memory/process image (CRIU images, VM state); 0 for files-only mechanisms. */
  memoryBytes: number;
  /** Whether the parent is stopped for (and after) the checkpoint. */
  parentPaused: boolean;
  facts: Record<string, unknown>;
}

/**
 * Host resources a trial's sandboxes must see besides the workspace, for a state program that runs
 * more than the checkpoint kind's (the rollout-step kind's fork attempts: the agent's support
 * mounts, the model-service endpoint, the attempt's cgroup). Honoured only by a mechanism whose
 * `attachments` is 'honoured'; the caller may pass a per-child `budget` on the trial it gives restore().
 */
export interface SandboxAttachments {
  mounts: SandboxMount[];
  service: ServiceEndpoint | null;
  /** Cgroup the sandbox's processes enter (its enterArgv prefixes the launch); null = the caller's. */
  budget: BudgetPlacement | null;
}

export interface MechanismTrial {
  run: RunContext;
  /** Harness-owned scratch directory of this trial (below $SANDBENCH_HOME/tmp/sandbench-<run>/). */
  dir: string;
  trialId: string;
  /** Host baseline workspace (read-only for every mechanism). */
  baseline: string;
  program: StateProgram;
  timeoutMs: number;
  /** Guest RAM of VM mechanisms, MiB. */
  vmMemoryMiB?: number;
  /** Absent for the checkpoint kind; a mechanism without `attachments: 'honoured'` must never be given one. */
  attach?: SandboxAttachments;
}

export interface ParentSandbox extends Sandbox {
  /** Opaque per-mechanism state. */
  readonly internal: unknown;
}

export interface CheckpointMechanism {
  readonly backend: BackendName;
  readonly variant: string | null;
  readonly preserves: Preserved;
  /** Whether parent and children get MechanismTrial.attach; absent = not honoured (fork attempts are not applicable). */
  readonly attachments?: 'honoured';
  probe(): Promise<ProbeResult>;
  /** Once per run, outside timing. */
  prepare(run: RunContext): Promise<void>;
  startParent(trial: MechanismTrial): Promise<ParentSandbox>;
  /** Before the checkpoint, outside timing: quiesce (close host connections the checkpoint cannot carry). */
  quiesce(parent: ParentSandbox): Promise<void>;
  /** Timed by the kind. */
  checkpoint(trial: MechanismTrial, parent: ParentSandbox): Promise<CheckpointImage>;
  /** Timed by the kind up to the child's first answer. */
  restore(trial: MechanismTrial, image: CheckpointImage, childIndex: number): Promise<Sandbox>;
  /** Digest of the frozen parent state (files), to prove no child changed it. */
  frozenDigest(trial: MechanismTrial, image: CheckpointImage): Promise<string | null>;
  destroy(trial: MechanismTrial, sandbox: Sandbox): Promise<void>;
  /** Remove the checkpoint image, the parent and everything else of the trial. Idempotent. */
  discard(trial: MechanismTrial): Promise<void>;
  teardown(): Promise<void>;
}

/** A mechanism that cannot work here: the arm is `unavailable` with this reason, never silently absent. */
export function unavailableProbe(backend: BackendName, reason: string, fix: string, details: Record<string, string> = {}, version: string | null = null): ProbeResult {
  return { backend, available: false, version, details, reason, fix };
}
