/**
 * The `fork` prefix strategy: one group's K attempts forked from one prepared parent through the
 * backend's checkpoint mechanism (executors/checkpoint/). The parent is the task's workspace with
 * the attempt program (fork-program/attempt_server.py) as its state program: it records the
 * baseline manifest and runs the task's preparation, then the mechanism checkpoints it. Each
 * attempt restores its own child and hands it to the rollout kind's attempt pipeline as an Executor
 * view (`forkedExecutor`): staging = restore (the group's prepare + checkpoint first, once), launch
 * = the attempt's argv + env sent to the child's program, collect = the candidate it answered. So
 * forked and fresh attempts are scored by the same pipeline, from the same diff against the task
 * baseline. The rollout's mounts, model-service endpoint and the attempt's cgroup reach the child
 * through MechanismTrial.attach, which only a mechanism with `attachments: 'honoured'` is given.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BudgetPlacement, CandidateFiles, Executor, ExitInfo, OutputLine, RunningTrial, TaskCommand } from '../../harness/contracts/executor.ts';
import { SANDBOX_MOUNT_ROOT } from '../../harness/contracts/executor.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, Sandbox, StateProgram } from '../../executors/checkpoint/mechanism.ts';
import { lineRelay } from '../../executors/checkpoint/container-relay.ts';

const PROGRAM_DIR = join(PROJECT_ROOT, 'experiments', 'rollout-step', 'fork-program');
const PROGRAM_TARGET = `${SANDBOX_MOUNT_ROOT}/fork`;
const PROGRAM_FILE = 'attempt_server.py';
const ANSWER_PREFIX = 'ATTEMPT ';
/** Extra time a child's answer may take past the attempt's own timeout (the diff and tar of its candidate). */
const ANSWER_MARGIN_MS = 30_000;

/** The attempt program's directory, read-only in the sandbox beside the rollout's own mounts. */
export const attemptProgramMount = () => ({ source: PROGRAM_DIR, target: PROGRAM_TARGET, contentKey: createHash('sha256').update(readFileSync(join(PROGRAM_DIR, PROGRAM_FILE))).digest('hex').slice(0, 16) });

export const attemptProgram: StateProgram = {
  stdio: (workspace, python = '/usr/bin/python3', lineMax) => ({
    argv: [python, '-u', `${PROGRAM_TARGET}/${PROGRAM_FILE}`, '--workspace', workspace, ...(lineMax ? ['--line-max', String(lineMax)] : [])],
    env: { PYTHONDONTWRITEBYTECODE: '1' },
  }),
  // container mechanisms: the server on the sandbox's loopback, reached through a host relay in its netns
  tcp: (workspace, port) => ({ argv: ['/usr/bin/python3', '-u', `${PROGRAM_TARGET}/${PROGRAM_FILE}`, '--workspace', workspace, 'tcp', String(port)], env: { PYTHONDONTWRITEBYTECODE: '1' } }),
  relay: (port) => lineRelay(port, ANSWER_PREFIX),
  answerPrefix: ANSWER_PREFIX,
};

/** One forked attempt's phases, ms: the group's (shared by its K attempts) and its own. */
export interface ForkPhases {
  /** Parent start + its preparation (manifest, the task's preparation argv) + quiesce. */
  prepare_ms: number;
  checkpoint_ms: number;
  /** This child's restore, up to its program's first answer. */
  restore_ms: number;
  /** The attempt's run inside the child, from request to answer (agent + candidate diff). */
  attempt_ms: number | null;
  child: number;
  disk_bytes: number;
  memory_bytes: number;
}

interface RunAnswer {
  exit_code: number | null;
  timed_out: boolean;
  changed: string[];
  deleted: string[];
  tar: string;
  stdout_tail: string[];
  stderr_tail: string[];
}

const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

/** A group's parent and checkpoint, made once on first demand; children restored per attempt; discarded after its last attempt. */
export class ForkGroup {
  private prefix: Promise<{ image: CheckpointImage; prepareMs: number; checkpointMs: number }> | null = null;
  private nextChild = 0;
  private open: number;

  constructor(
    private readonly mechanism: CheckpointMechanism,
    readonly trial: MechanismTrial,
    attempts: number,
  ) {
    if (mechanism.attachments !== 'honoured') throw new Error(`fork group: the ${mechanism.backend} checkpoint mechanism does not honour MechanismTrial.attach`);
    this.open = attempts;
  }

  private makePrefix() {
    return (this.prefix ??= (async () => {
      const t0 = process.hrtime.bigint();
      const parent = await this.mechanism.startParent(this.trial);
      await parent.channel.ready;
      await parent.channel.request({ op: 'prepare' }, this.trial.timeoutMs);
      await this.mechanism.quiesce(parent);
      const prepareMs = elapsedMs(t0);
      const t1 = process.hrtime.bigint();
      const image = await this.mechanism.checkpoint(this.trial, parent);
      return { image, prepareMs, checkpointMs: elapsedMs(t1) };
    })());
  }

  /** Restore a child (after the group's prefix); `budget` is the attempt's cgroup. */
  async child(budget: BudgetPlacement | null): Promise<{ sandbox: Sandbox; phases: ForkPhases }> {
    const { image, prepareMs, checkpointMs } = await this.makePrefix();
    const index = this.nextChild++;
    const t0 = process.hrtime.bigint();
    const trial: MechanismTrial = { ...this.trial, ...(this.trial.attach ? { attach: { ...this.trial.attach, budget } } : {}) };
    const sandbox = await this.mechanism.restore(trial, image, index);
    await sandbox.channel.ready;
    return { sandbox, phases: { prepare_ms: prepareMs, checkpoint_ms: checkpointMs, restore_ms: elapsedMs(t0), attempt_ms: null, child: index, disk_bytes: image.diskBytes, memory_bytes: image.memoryBytes } };
  }

  async destroy(sandbox: Sandbox): Promise<void> {
    await this.mechanism.destroy(this.trial, sandbox);
  }

  /**
   * One attempt of the group is over (ran or not, every try of it): the last one discards the
   * parent, the image and every child. The attempt calls it, not a try's executor, so a retry can
   * still restore a child of its own.
   */
  async release(): Promise<void> {
    if (--this.open === 0) await this.discard();
  }

  async discard(): Promise<void> {
    await this.mechanism.discard(this.trial);
  }
}

function answeredCandidate(answer: RunAnswer, phases: ForkPhases): CandidateFiles {
  const files = untar(Buffer.from(answer.tar, 'base64'));
  return {
    changed: [...answer.changed, ...answer.deleted.map((path) => `${path} (deleted)`)],
    read: async (path) => files.get(path) ?? null,
    facts: { fork: phases },
  };
}

/** A POSIX (ustar/pax) archive of regular files, as attempt_server.py's tarfile writes it: name → content. */
export function untar(archive: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let paxPath: string | null = null;
  let at = 0;
  while (at + 512 <= archive.length) {
    const header = archive.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (from: number, length: number) => header.subarray(from, from + length).toString('utf8').replace(/\0.*$/s, '');
    const prefix = field(345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1);
    const body = archive.subarray(at + 512, at + 512 + size);
    paxPath = null;
    // pax extended header (a long or non-ASCII name): its `path` record names the next entry
    if (type === 'x') paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString('utf8'))?.[1] ?? null;
    else if (type === '0' || type === '') files.set(name, Buffer.from(body));
    else if (type !== '5' && type !== 'g') throw new Error(`fork candidate: unexpected tar entry type ${JSON.stringify(type)} for ${name} (the attempt program archives regular files only)`);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/**
 * The rollout kind's attempt pipeline over one forked child (as warm-pool.ts's claimedExecutor over
 * a pooled sandbox): the pipeline's own stamps then time restore as staging and the child's run as
 * the agent's launch-to-exit; `phases` holds the fork's own breakdown once the attempt ends.
 */
export function forkedExecutor(inner: Executor, group: ForkGroup, budget: BudgetPlacement | null): Executor & { phases(): ForkPhases | null } {
  let child: { sandbox: Sandbox; phases: ForkPhases } | null = null;
  let answer: RunAnswer | null = null;
  let released = false;
  // The child only: its attempt releases the group once its last try is over (ForkGroup.release).
  const release = async () => {
    if (released) return;
    released = true;
    if (child) await group.destroy(child.sandbox).catch(() => undefined);
  };
  return {
    backend: inner.backend,
    traits: inner.traits,
    variant: inner.variant,
    phases: () => child?.phases ?? null,
    probe: () => inner.probe(),
    prepare: (run) => inner.prepare(run),
    async stageWorkspace(trial) {
      child = await group.child(budget);
      return { hostPath: trial.baselineWorkspace, claimsStaging: false };
    },
    async launch(trial, command: TaskCommand) {
      if (!child) throw new Error('forked attempt: launch before its child was restored');
      const { sandbox, phases } = child;
      // the child's process groups, for a kill from outside (an injected fault) as on any launched sandbox
      const pids = await sandbox.pids();
      // a child sees what its group's parent was given: the attempt's mounts must be among them
      const attached = new Set(group.trial.attach?.mounts.map((mount) => mount.target));
      const missing = (command.mounts ?? []).filter((mount) => !attached.has(mount.target));
      if (missing.length > 0) throw new Error(`forked attempt: ${missing.map((m) => m.target).join(', ')} not attached to its group's parent`);
      const lines: OutputLine[] = [];
      const listeners: ((line: OutputLine) => void)[] = [];
      const tSpawnNs = process.hrtime.bigint();
      const exit: Promise<ExitInfo> = sandbox.channel
        .request({ op: 'run', argv: command.argv, env: command.env, timeout_s: trial.timeoutMs / 1000 }, trial.timeoutMs + ANSWER_MARGIN_MS)
        .then((reply) => {
          const tExitNs = process.hrtime.bigint();
          answer = reply as unknown as RunAnswer;
          phases.attempt_ms = Number(tExitNs - tSpawnNs) / 1e6;
          for (const [stream, texts] of [['stdout', answer.stdout_tail], ['stderr', answer.stderr_tail]] as const) {
            for (const text of texts) {
              const line = { stream, text, tNs: tExitNs };
              lines.push(line);
              listeners.forEach((listener) => listener(line));
            }
          }
          return { exitCode: answer.exit_code, signal: null, timedOut: answer.timed_out, tExitNs };
        })
        .catch((error: Error) => ({ exitCode: null, signal: null, timedOut: false, tExitNs: process.hrtime.bigint(), infraFailure: { category: 'setup_failed' as const, reason: `forked child ${phases.child}: ${error.message}` } }));
      const running: RunningTrial = {
        tSpawnNs,
        lines,
        onLine: (listener) => (listeners.push(listener), lines.forEach(listener)),
        writeStdin: () => undefined,
        closeStdin: () => undefined,
        exit,
        kill: async () => void (await group.destroy(sandbox).catch(() => undefined)),
        rootPids: () => pids,
      };
      return running;
    },
    async collect() {
      if (!answer || !child) throw new Error('forked attempt: no answer from its child to collect');
      return answeredCandidate(answer, child.phases);
    },
    finishTrial: release,
    teardown: async () => undefined,
  };
}
