/**
 * The conformance properties: what every backend must do for its numbers to mean what the kinds say
 * they mean. One function per property, each running real trials on a prepared executor and returning
 * `{property, status, reason, ms}`: `pass`, `fail` (the reason says what was seen), or
 * `not-applicable` (the backend's traits do not claim it, or this machine cannot check it; the reason
 * says which). `sandbench conformance` and test/conformance run exactly these functions.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CandidateFiles, Executor, ExitInfo, ProbeResult, RunningTrial, TaskCommand, TimingPath, TrialContext, WorkspaceBinding } from '../../harness/contracts/executor.ts';
import { adoptHelpers, checkMembership, describeOutside, expectedProcesses } from '../../harness/controls/budget-membership.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { listProcesses, procInfo } from '../../harness/controls/proc-tree.ts';
import { harnessHelperPids } from '../launch/timing-session.ts';
import { treeDigest } from '../workspace-diff.ts';
import { mountsUnder, type ConformanceRun } from './conformance-run.ts';

export const PROPERTY_NAMES = ['ready-and-exit', 'staging', 'isolation', 'cleanup', 'timeout-kills-tree', 'budget-membership', 'service-reachable', 'timing-path'] as const;
export type PropertyName = (typeof PROPERTY_NAMES)[number];
export type PropertyStatus = 'pass' | 'fail' | 'not-applicable';

export interface PropertyResult {
  property: PropertyName;
  status: PropertyStatus;
  reason: string;
  /** Wall time the property took (its trials, set-up and checks), ms. */
  ms: number;
}

/** One prepared executor and what the properties learn as they run. */
export interface ConformanceSubject {
  executor: Executor;
  probe: ProbeResult;
  run: ConformanceRun;
  /** A trial's timeout (the timeout property uses a shorter one, from the ready time seen). */
  trialTimeoutMs: number;
  /**
   * Filled by the properties: whether the ready property's REFERENCE_READY reached the harness at all,
   * its ready time when the property passed, and how every launch was timed.
   */
  observed: { taskSpoke: boolean | null; readyMs: number | null; launches: { trialId: string; timing: TimingPath | undefined }[] };
}

export function conformanceSubject(executor: Executor, probe: ProbeResult, run: ConformanceRun, trialTimeoutMs: number): ConformanceSubject {
  return { executor, probe, run, trialTimeoutMs, observed: { taskSpoke: null, readyMs: null, launches: [] } };
}

/** The default trial timeout for a backend: VMs boot (under TCG, slowly) before the task speaks. */
export function defaultTrialTimeoutMs(executor: Pick<Executor, 'traits'>): number {
  return executor.traits.launch === 'vm' ? 180_000 : 60_000;
}

/** A failed check: its message is the property's reason. */
class PropertyFailure extends Error {}
function check(condition: unknown, reason: string): asserts condition {
  if (!condition) throw new PropertyFailure(reason);
}

async function measured(property: PropertyName, body: () => Promise<{ status?: PropertyStatus; reason: string }>): Promise<PropertyResult> {
  const started = performance.now();
  let verdict: { status: PropertyStatus; reason: string };
  try {
    const result = await body();
    verdict = { status: result.status ?? 'pass', reason: result.reason };
  } catch (error) {
    verdict = { status: 'fail', reason: error instanceof PropertyFailure ? error.message : `error: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { property, ...verdict, ms: Math.round(performance.now() - started) };
}

const notApplicable = (reason: string) => ({ status: 'not-applicable' as const, reason });

interface TrialOutcome {
  binding: WorkspaceBinding;
  running: RunningTrial;
  exit: ExitInfo;
  stdout: string[];
  stderr: string[];
  candidates: CandidateFiles;
  /** Host PIDs of the launched tree's roots, read while it ran. */
  rootPids: number[];
  elapsedMs: number;
}

/** stage → launch → (during) → exit → (afterExit) → collect → finishTrial, like the run loop; finishTrial always runs. */
async function runTrial(
  subject: ConformanceSubject,
  trial: TrialContext,
  task: TaskCommand,
  hooks: {
    during?: (running: RunningTrial) => Promise<void>;
    afterExit?: (running: RunningTrial, exit: ExitInfo) => Promise<void>;
    /** After collect, before finishTrial (which may remove what the candidates read from). */
    collected?: (candidates: CandidateFiles, binding: WorkspaceBinding) => Promise<void>;
    /** false: a trial killed on purpose is not collected (finishTrial still runs). */
    collect?: boolean;
  } = {},
): Promise<TrialOutcome> {
  const { executor } = subject;
  try {
    const binding = await executor.stageWorkspace(trial);
    const started = performance.now();
    const running = await executor.launch(trial, task);
    subject.observed.launches.push({ trialId: trial.trialId, timing: running.timing });
    const rootPids = running.rootPids();
    try {
      if (hooks.during) await hooks.during(running);
    } catch (error) {
      await running.kill('conformance check failed');
      throw error;
    }
    const exit = await running.exit;
    const elapsedMs = performance.now() - started;
    if (hooks.afterExit) await hooks.afterExit(running, exit);
    const candidates: CandidateFiles = hooks.collect === false ? { changed: [], read: async () => null, facts: {} } : await executor.collect(trial, binding);
    if (hooks.collected) await hooks.collected(candidates, binding);
    const lines = (stream: 'stdout' | 'stderr') => running.lines.filter((line) => line.stream === stream).map((line) => line.text);
    return { binding, running, exit, stdout: lines('stdout'), stderr: lines('stderr'), candidates, rootPids, elapsedMs };
  } finally {
    await executor.finishTrial(trial);
    // Never remove through a mount left behind (it could reach the baseline): the cleanup property reports it.
    if (mountsUnder([trial.trialDir]).length === 0) rmSync(trial.trialDir, { recursive: true, force: true });
  }
}

const sh = (script: string, stdin: TaskCommand['stdin'] = 'none', ...args: string[]): TaskCommand => ({ argv: ['/bin/sh', '-c', script, ...(args.length ? ['sh', ...args] : [])], env: {}, stdin });
const python = (code: string): TaskCommand => ({ argv: ['python3', '-c', code], env: {}, stdin: 'none' });

/** Resolves when a line matching `predicate` arrives, false when the trial exits first. */
function lineOrExit(running: RunningTrial, predicate: (text: string) => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    running.onLine((line) => predicate(line.text) && resolve(true));
    void running.exit.then(() => resolve(false));
  });
}

/** What the exit says beyond its code: a timeout, a signal, the adapter's infrastructure failure. */
function describeExit(exit: ExitInfo): string {
  const parts = [`exit ${exit.exitCode ?? 'none'}`];
  if (exit.signal) parts.push(`signal ${exit.signal}`);
  if (exit.timedOut) parts.push('timed out');
  if (exit.infraFailure) parts.push(`${exit.infraFailure.category}: ${exit.infraFailure.reason}`);
  return parts.join(', ');
}

const tail = (lines: readonly string[]) => (lines.length === 0 ? '(none)' : lines.slice(-3).join(' | '));

// ---- ready marker and exit code -----------------------------------------------------------------

/** The task prints REFERENCE_READY, writes stderr, reads a line from stdin, exits 3: all of it reaches the harness, in order. */
export function readyAndExit(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('ready-and-exit', async () => {
    const trial = subject.run.newTrial('ready', { timeoutMs: subject.trialTimeoutMs });
    const task = sh('echo REFERENCE_READY; echo to-stderr >&2; read line; echo "got:$line"; exit 3', 'pipe');
    const out = await runTrial(subject, trial, task, {
      during: async (running) => {
        if (await lineOrExit(running, (text) => text === 'REFERENCE_READY')) {
          running.writeStdin('GO\n');
          running.closeStdin();
        }
      },
    });
    const ready = out.running.lines.find((line) => line.stream === 'stdout' && line.text === 'REFERENCE_READY');
    subject.observed.taskSpoke = ready !== undefined;
    check(ready, `no REFERENCE_READY line reached the harness (${describeExit(out.exit)}; stdout: ${tail(out.stdout)}; stderr: ${tail(out.stderr)})`);
    const readyMs = Number(ready.tNs - out.running.tSpawnNs) / 1e6;
    const completionMs = Number(out.exit.tExitNs - out.running.tSpawnNs) / 1e6;
    check(readyMs > 0 && readyMs <= completionMs, `ready stamped at ${readyMs.toFixed(1)} ms, completion at ${completionMs.toFixed(1)} ms: ready must fall after the spawn stamp and before the exit`);
    check(out.stdout.includes('got:GO'), `stdin was not delivered: the task never printed got:GO (${describeExit(out.exit)})`);
    check(out.stderr.some((text) => text.includes('to-stderr')), `stderr was not captured (stderr: ${tail(out.stderr)})`);
    check(out.exit.exitCode === 3 && !out.exit.timedOut && !out.exit.infraFailure, `expected exit 3, got ${describeExit(out.exit)}`);
    subject.observed.readyMs = readyMs;
    return { reason: `REFERENCE_READY read at ${readyMs.toFixed(1)} ms, stdin and stderr carried, exit 3 reported at ${completionMs.toFixed(1)} ms` };
  });
}

// ---- staging claim --------------------------------------------------------------------------------

/** The task reads, writes, appends and deletes in /workspace: the candidate files say so, and the baseline stays byte-identical. */
export function stagingClaim(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('staging', async () => {
    const { baseline } = subject.run;
    const trial = subject.run.newTrial('staging', { timeoutMs: subject.trialTimeoutMs });
    const before = treeDigest(baseline);
    let written: string | undefined;
    let hostCopy: string | undefined;
    const out = await runTrial(subject, trial, sh('cat a.txt && printf written > w.txt && echo more >> sub/b.txt && rm gone.txt && echo REFERENCE_READY'), {
      collected: async (candidates, binding) => {
        written = (await candidates.read('w.txt'))?.toString();
        if (!binding.claimsStaging && existsSync(join(binding.hostPath, 'w.txt'))) hostCopy = readFileSync(join(binding.hostPath, 'w.txt'), 'utf8');
      },
    });
    const after = treeDigest(baseline);
    check(out.exit.exitCode === 0, `the task could not read, write and delete in its workspace (${describeExit(out.exit)}; stderr: ${tail(out.stderr)})`);
    check(out.stdout.includes('hello'), `the workspace did not show the baseline: cat a.txt printed ${tail(out.stdout)}`);
    check(after === before, `the baseline workspace changed while the task ran (tree digest ${before} → ${after})`);
    const expected = ['w.txt', 'sub/b.txt', 'gone.txt (deleted)'];
    const missing = expected.filter((path) => !out.candidates.changed.includes(path));
    check(missing.length === 0, `candidate files miss ${missing.join(', ')} (collected: ${out.candidates.changed.join(', ') || 'nothing'})`);
    check(written === 'written', `reading candidate w.txt gave ${JSON.stringify(written ?? null)}, expected "written"`);
    if (out.binding.claimsStaging) {
      return { reason: `claims staging: baseline unchanged (${before.slice(0, 19)}…) while the task wrote and deleted; collected ${expected.join(', ')}` };
    }
    check(out.binding.hostPath !== baseline, `no staging claim, yet its writable host copy is the baseline itself (${baseline})`);
    // A write-through backend changes its per-trial host copy (a published finding, not a bug).
    check(hostCopy === 'written', `no staging claim, yet the task's write is not in its host copy ${join(out.binding.hostPath, 'w.txt')} (read ${JSON.stringify(hostCopy ?? null)})`);
    return { reason: `no staging claim: writes go through to a per-trial copy, the baseline unchanged; collected ${expected.join(', ')}` };
  });
}

// ---- isolation -------------------------------------------------------------------------------------

/**
 * Where the traits claim it: no network (a TCP connect to a host loopback listener fails and the
 * listener sees no connection) and no filesystem escape (a write to a host path outside the
 * workspace, beside the trial's own directory, does not reach the host).
 */
export function isolation(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('isolation', async () => {
    const { networkIsolated, isolatesFilesystem } = subject.executor.traits;
    if (!networkIsolated && !isolatesFilesystem) return notApplicable('traits claim neither network nor filesystem isolation (networkIsolated: false, isolatesFilesystem: false)');
    const trial = subject.run.newTrial('isolation', { timeoutMs: subject.trialTimeoutMs });
    const escapeDir = join(dirname(trial.trialDir), `escape-${trial.trialId}`);
    const escapeFile = join(escapeDir, 'probe.txt');
    let connections = 0;
    const listener: Server = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined); // the probe may close first: a reset is no finding
      socket.end('hello from the host\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as { port: number }).port;
    try {
      const code = [
        'import os, socket',
        ...(networkIsolated
          ? ['try:', `  socket.create_connection(("127.0.0.1", ${port}), timeout=3); print("NET CONNECTED")`, 'except OSError as e:', '  print("NET REFUSED", e)']
          : []),
        ...(isolatesFilesystem
          ? ['try:', `  os.makedirs(${JSON.stringify(escapeDir)}, exist_ok=True)`, `  open(${JSON.stringify(escapeFile)}, "w").write("escaped")`, '  print("FS WROTE")', 'except OSError as e:', '  print("FS DENIED", e)']
          : []),
        'print("REFERENCE_READY")',
      ].join('\n');
      const out = await runTrial(subject, trial, python(code));
      check(out.stdout.includes('REFERENCE_READY'), `the probe did not finish (${describeExit(out.exit)}; stdout: ${tail(out.stdout)}; stderr: ${tail(out.stderr)})`);
      const findings: string[] = [];
      if (networkIsolated) {
        const net = out.stdout.find((text) => text.startsWith('NET '));
        check(net?.startsWith('NET REFUSED') && connections === 0, `traits say networkIsolated, yet a TCP connect to the host's 127.0.0.1:${port} ${net === undefined ? 'printed nothing' : `printed "${net}"`} and the listener saw ${connections} connection(s)`);
        findings.push(`no network (${net!.slice('NET '.length)})`);
      } else findings.push('network not claimed isolated (traits)');
      if (isolatesFilesystem) {
        const fs = out.stdout.find((text) => text.startsWith('FS ')) ?? '(no FS line)';
        check(!existsSync(escapeFile), `traits say isolatesFilesystem, yet the task's write to ${escapeFile} reached the host`);
        findings.push(`a write to ${escapeDir} stayed inside (${fs === 'FS WROTE' ? 'it landed in the sandbox\'s own filesystem' : fs.replace(/^FS /, '')})`);
      } else findings.push('filesystem not claimed isolated (traits)');
      return { reason: findings.join('; ') };
    } finally {
      listener.close();
      rmSync(escapeDir, { recursive: true, force: true });
    }
  });
}

// ---- cleanup ---------------------------------------------------------------------------------------

/** Live processes holding `token` in their argv, and live roots among `rootPids` (zombies excluded). */
function processesLeft(token: string, rootPids: readonly number[]): string[] {
  const self = process.pid;
  const byToken = listProcesses().filter((proc) => proc.pid !== self && proc.cmdline.includes(token));
  const roots = rootPids.map((pid) => procInfo(pid)).filter((proc) => proc !== null && proc.cmdline !== '' && !byToken.some((p) => p.pid === proc.pid));
  return [...byToken, ...roots].map((proc) => `${proc!.comm}[${proc!.pid}]`);
}

/** After finishTrial nothing of the trial is left: no process of its tree (a background child included), no mount under its directories. */
export function cleanup(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('cleanup', async () => {
    const trial = subject.run.newTrial('cleanup', { timeoutMs: subject.trialTimeoutMs });
    const token = subject.run.tokenOf(trial);
    const trialDir = trial.trialDir;
    // A background child that outlives the task, holding the token in its own argv.
    const out = await runTrial(subject, trial, sh(`sh -c 'sleep 300; :' "$1" >/dev/null 2>&1 & echo REFERENCE_READY`, 'none', token));
    check(out.stdout.includes('REFERENCE_READY'), `the task did not run (${describeExit(out.exit)}; stderr: ${tail(out.stderr)})`);
    // A killed process takes a moment to vanish from /proc.
    let left: string[] = [];
    let mounts: string[] = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      left = processesLeft(token, out.rootPids);
      mounts = mountsUnder([trialDir, subject.run.baseline]);
      if (left.length === 0 && mounts.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    check(left.length === 0, `after finishTrial the trial's processes are still running: ${left.join(', ')}`);
    check(mounts.length === 0, `after finishTrial mounts remain under the trial: ${mounts.join(', ')}`);
    return { reason: 'after finishTrial no process of the trial (its background child included) and no mount under its directories remain' };
  });
}

// ---- timeout -----------------------------------------------------------------------------------------

/**
 * A task that outlives the trial timeout is stopped at it, its whole tree (a background child
 * included) with it. For a VM the host sees only the VMM: the guest cannot outlive it, so a short
 * timeout that lands mid-boot checks the same thing as one after the task started, without a boot.
 */
export function timeoutKillsTree(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('timeout-kills-tree', async () => {
    const vm = subject.executor.traits.launch === 'vm';
    // Long enough for the task to have started (from the ready time seen), short enough to be cheap.
    let timeoutMs = Math.min(subject.trialTimeoutMs, vm ? 5_000 : Math.max(3_000, Math.round(1.5 * (subject.observed.readyMs ?? 0)) + 2_000));
    for (let attempt = 1; ; attempt++) {
      const trial = subject.run.newTrial('timeout', { timeoutMs });
      const token = subject.run.tokenOf(trial);
      let left: string[] = [];
      const out = await runTrial(subject, trial, sh(`sh -c 'sleep 600; :' "$1" >/dev/null 2>&1 & echo REFERENCE_READY; sleep 600; echo "$1"`, 'none', token), {
        afterExit: async (running, exit) => {
          if (!exit.timedOut) return;
          for (let poll = 0; poll < 40; poll++) {
            left = processesLeft(token, running.rootPids());
            if (left.length === 0) return;
            await new Promise((resolve) => setTimeout(resolve, 250));
          }
        },
      });
      const started = out.stdout.includes('REFERENCE_READY');
      if (!vm && !started && attempt < 2 && timeoutMs < subject.trialTimeoutMs) {
        timeoutMs = Math.min(subject.trialTimeoutMs, timeoutMs * 3);
        continue;
      }
      check(vm || started, `the task never printed REFERENCE_READY within the ${timeoutMs} ms timeout, so the kill could not be checked (${describeExit(out.exit)})`);
      check(out.exit.timedOut, `a task sleeping 600 s under a ${timeoutMs} ms timeout was not reported timed out (${describeExit(out.exit)})`);
      check(out.elapsedMs < timeoutMs + 30_000, `the timed-out trial took ${Math.round(out.elapsedMs)} ms to end under a ${timeoutMs} ms timeout`);
      check(left.length === 0, `after the ${timeoutMs} ms timeout the task's tree is still running: ${left.join(', ')}`);
      const what = vm ? `the VMM${started ? ' and its guest' : ' (killed before the guest task spoke: the guest cannot outlive it)'}` : 'its tree (a background child included)';
      return { reason: `timed out at ${timeoutMs} ms, ended after ${Math.round(out.elapsedMs)} ms, nothing of ${what} left running` };
    }
  });
}

// ---- budget membership -------------------------------------------------------------------------------

/** Why this machine cannot make a budget cgroup, or null when it can try. */
function budgetUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'budgets need root (cgroup directories under /sys/fs/cgroup); run as root to check';
  try {
    detectCgroupLayout();
  } catch (error) {
    return `no usable cgroup layout for budgets: ${(error as Error).message}`;
  }
  return null;
}

/** A trial launched with a budget (as density batches are) has its processes inside the budget's cgroup. */
export function budgetMembership(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('budget-membership', async () => {
    const why = budgetUnavailable();
    if (why) return notApplicable(why);
    const { executor, run } = subject;
    let budget: CgroupBudget;
    try {
      // The whole machine and 1 GiB (a 256 MiB guest and its VMM fit): the property is membership, not limits.
      budget = CgroupBudget.create({ runId: run.context.runId, label: `conformance-${executor.backend}`, cpus: `0-${availableParallelism() - 1}`, memoryMiB: 1024, cleanup: run.context.cleanup });
    } catch (error) {
      return notApplicable(`this machine cannot make a budget cgroup: ${(error as Error).message}`);
    }
    try {
      const trial = run.newTrial('budget', { timeoutMs: subject.trialTimeoutMs, budget: budget.placement('outside') });
      const token = run.tokenOf(trial);
      /** undefined: not checked; null: every process inside; else what was outside. */
      let verdict: string | null | undefined;
      let notes = '';
      // A VM's guest is invisible from the host: its launched tree (the VMM) is in the budget from the spawn on, or never; no boot needed.
      const vm = executor.traits.launch === 'vm';
      const out = await runTrial(subject, trial, sh('echo REFERENCE_READY; read line; echo "got:$line"', 'pipe', token), {
        collect: !vm,
        during: async (running) => {
          if (!vm && !(await lineOrExit(running, (text) => text === 'REFERENCE_READY'))) return;
          const { expected, byDesign } = expectedProcesses({
            rootPids: running.rootPids(),
            payloadToken: token,
            harnessPids: [process.pid, ...harnessHelperPids()],
            clientCommands: executor.traits.clientCommand ? [executor.traits.clientCommand] : [],
          });
          const adopted = executor.traits.runtimeHelpersOutsideCgroup ? adoptHelpers(budget, expected) : [];
          const report = checkMembership(budget, expected, byDesign);
          verdict = report.outside.length > 0 ? `outside the budget: ${describeOutside(report)}` : report.checked === 0 ? 'no process of the trial was found to check' : null;
          notes = [
            `${report.checked} process(es) inside ${budget.relPath}`,
            ...(adopted.length ? [`runtime helpers adopted as density does: ${adopted.map((p) => `${p.comm}[${p.pid}]`).join(', ')}`] : []),
            ...(report.outsideByDesign.length ? [`outside by design: ${report.outsideByDesign.map((p) => `${p.comm}[${p.pid}]`).join(', ')}`] : []),
          ].join('; ');
          if (vm) await running.kill('budget membership checked');
          else {
            running.writeStdin('GO\n');
            running.closeStdin();
          }
        },
      });
      if (vm) {
        check(verdict !== undefined, `the membership check did not run (${describeExit(out.exit)})`);
        check(verdict === null, verdict ?? '');
        return { reason: `${notes} (the VMM: its guest is invisible from the host)` };
      }
      check(out.stdout.includes('REFERENCE_READY'), `the task did not start under the budget (${describeExit(out.exit)}; stderr: ${tail(out.stderr)})`);
      check(verdict !== undefined, `the membership check did not run (${describeExit(out.exit)})`);
      check(verdict === null, verdict ?? '');
      check(out.exit.exitCode === 0 && out.stdout.includes('got:GO'), `the budgeted task did not finish (${describeExit(out.exit)})`);
      return { reason: notes };
    } finally {
      await budget.destroy();
    }
  });
}

// ---- service reachability ------------------------------------------------------------------------------

/** With TaskCommand.service, the task reaches the host's Unix socket service (as the agent and rollout kinds need). */
export function serviceReachable(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('service-reachable', async () => {
    // A Unix socket path holds at most 107 bytes: the run's scratch when it fits, else a short temp dir.
    const inRoot = join(subject.run.root, `svc${subject.observed.launches.length}.sock`);
    const socketDir = Buffer.byteLength(inRoot) <= 100 ? null : mkdtempSync(join(tmpdir(), 'sbsvc-'));
    const socketPath = socketDir ? join(socketDir, 's.sock') : inRoot;
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.on('error', () => undefined);
      socket.end('SANDBENCH_SERVICE_OK\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, resolve);
    });
    try {
      const code = [
        'import os, socket',
        'url = os.environ.get("SANDBENCH_SERVICE_URL")',
        'path = os.environ.get("SANDBENCH_SERVICE_SOCKET")',
        'try:',
        '  if url:',
        '    host, port = url.split("//", 1)[1].rstrip("/").split(":")',
        '    s = socket.create_connection((host, int(port)), timeout=10)',
        '  elif path:',
        '    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(10); s.connect(path)',
        '  else:',
        '    raise OSError("neither SANDBENCH_SERVICE_URL nor SANDBENCH_SERVICE_SOCKET is set")',
        '  reply = b""',
        '  while True:',
        '    chunk = s.recv(4096)',
        '    if not chunk: break',
        '    reply += chunk',
        '  print("SERVICE_REPLY", reply.decode().strip(), "via", url or "socket")',
        'except OSError as e:',
        '  print("SERVICE_ERROR", e)',
        'print("REFERENCE_READY")',
      ].join('\n');
      const trial = subject.run.newTrial('service', { timeoutMs: subject.trialTimeoutMs });
      const out = await runTrial(subject, trial, { ...python(code), service: { name: 'conformance', socketPath } });
      const line = out.stdout.find((text) => text.startsWith('SERVICE_'));
      check(line !== undefined, `the task printed no service result (${describeExit(out.exit)}; stderr: ${tail(out.stderr)}); the agent and rollout kinds need a reachable service`);
      check(line.startsWith('SERVICE_REPLY SANDBENCH_SERVICE_OK') && connections > 0, `the task could not reach the service socket: ${line} (the server saw ${connections} connection(s)); the agent and rollout kinds need it`);
      return { reason: `reached the host's Unix socket service ${line.slice(line.indexOf(' via ') + 1)}` };
    } finally {
      server.close();
      rmSync(socketDir ?? socketPath, { recursive: true, force: true });
    }
  });
}

// ---- timing path ------------------------------------------------------------------------------------------

/** Every launch stated its timing path (launcher or node), and it is the path the probe stated. */
export function timingPathRecorded(subject: ConformanceSubject): Promise<PropertyResult> {
  return measured('timing-path', async () => {
    if (subject.observed.launches.length === 0) {
      await runTrial(subject, subject.run.newTrial('timing', { timeoutMs: subject.trialTimeoutMs }), sh('echo REFERENCE_READY'));
    }
    const stated = subject.probe.details.timing_path;
    check(stated === 'launcher' || stated === 'node', `the probe does not state the timing path (details.timing_path is ${JSON.stringify(stated ?? null)})`);
    const launches = subject.observed.launches;
    const unstated = launches.filter((launch) => launch.timing?.path !== 'launcher' && launch.timing?.path !== 'node');
    check(unstated.length === 0, `launches without a timing path (RunningTrial.timing): ${unstated.map((l) => l.trialId).join(', ')}`);
    const differing = launches.filter((launch) => launch.timing!.path !== stated);
    check(differing.length === 0, `the probe states ${stated}, yet ${differing.map((l) => `${l.trialId} was timed by ${l.timing!.path}${l.timing!.fallback_reason ? ` (${l.timing!.fallback_reason})` : ''}`).join(', ')}`);
    const floor = subject.probe.details.launcher_floor_median_ms;
    return { reason: `all ${launches.length} launch(es) timed by the ${stated} path, as the probe states${stated === 'launcher' && floor ? ` (no-op floor ${floor} ms)` : stated === 'node' ? ` (${subject.probe.details.timing_fallback_reason ?? 'fallback'})` : ''}` };
  });
}

/** Every property, in the order they run (the timing path last: it reads every launch before it). */
export const PROPERTIES: readonly { name: PropertyName; check: (subject: ConformanceSubject) => Promise<PropertyResult> }[] = [
  { name: 'ready-and-exit', check: readyAndExit },
  { name: 'staging', check: stagingClaim },
  { name: 'isolation', check: isolation },
  { name: 'cleanup', check: cleanup },
  { name: 'timeout-kills-tree', check: timeoutKillsTree },
  { name: 'budget-membership', check: budgetMembership },
  { name: 'service-reachable', check: serviceReachable },
  { name: 'timing-path', check: timingPathRecorded },
];
