/**
 * Is every process of a batch inside its budget? The expected set is built from the process table:
 * the payload processes (found by a token in their argv, wherever they run), their ancestors up to
 * the harness (staged sandboxes, runtime helpers such as conmon and containerd-shim, VMMs), and the
 * launched trees. Container CLI clients (`podman run`, `docker run`) stay outside by design and are
 * listed separately, never silently, unless the batch put them inside (`clientsInBudget`): then they
 * are expected inside like any launched process. The harness itself is always outside.
 */
import type { CgroupBudget } from './cgroup-budget.ts';
import { ancestors, descendants, listProcesses, procCgroups, type ProcInfo } from './proc-tree.ts';

/** Runtime helpers that hold a container's resources and must be inside. */
export const RUNTIME_HELPER = /^(conmon|containerd-shim.*|qemu-system-.*)$/;

export interface MemberCheck {
  pid: number;
  comm: string;
  role: 'payload' | 'launched' | 'runtime-helper' | 'client';
  where: string;
}

export interface MembershipReport {
  checked: number;
  outside: MemberCheck[];
  /** Processes outside by design (the harness, container clients), for the limitations column. */
  outsideByDesign: { pid: number; comm: string }[];
  /** Runtime helpers moved into the budget by `adoptHelpers` before the check. */
  adopted: { pid: number; comm: string }[];
}

export interface ExpectedSetOptions {
  /** Root PIDs of the launched trees (RunningTrial.rootPids()). */
  rootPids: readonly number[];
  /** A string present in every payload process's argv (the batch token). */
  payloadToken: string;
  /** PIDs whose ancestry ends the upward walk (the harness). */
  harnessPids?: readonly number[];
  /** The container CLI clients were launched inside the budget (BudgetPlacement.clients 'inside'). */
  clientsInBudget?: boolean;
  /**
   * Process names of the backend's CLI client (its `clientCommand` trait): clients only talk to an
   * engine, so they are outside the budget by design (a stated limitation) unless `clientsInBudget`.
   */
  clientCommands?: readonly string[];
}

export interface ExpectedProcess {
  info: ProcInfo;
  role: MemberCheck['role'];
}

export function expectedProcesses(options: ExpectedSetOptions, table: ProcInfo[] = listProcesses()): { expected: ExpectedProcess[]; byDesign: ProcInfo[] } {
  const harness = new Set(options.harnessPids ?? [process.pid]);
  const expected = new Map<number, ExpectedProcess>();
  const byDesign = new Map<number, ProcInfo>();
  const clientComms = new Set(options.clientCommands ?? []);
  const add = (info: ProcInfo, role: MemberCheck['role']) => {
    if (harness.has(info.pid)) return;
    if (clientComms.has(info.comm)) {
      if (options.clientsInBudget) expected.set(info.pid, { info, role: 'client' });
      else byDesign.set(info.pid, info);
      return;
    }
    if (!expected.has(info.pid)) expected.set(info.pid, { info, role });
  };
  const payloads = table.filter((p) => p.cmdline.includes(options.payloadToken) && !harness.has(p.pid));
  for (const payload of payloads) {
    add(payload, 'payload');
    for (const ancestor of ancestors(payload.pid, harness, table)) {
      // Stop at daemons and clients: dockerd/containerd are shared infrastructure, not the batch.
      if (/^(dockerd|containerd|systemd|init)$/.test(ancestor.comm)) break;
      const helper = RUNTIME_HELPER.test(ancestor.comm);
      add(ancestor, helper ? 'runtime-helper' : 'launched');
      // A runtime helper is the top of a container's tree: above it (pid 1 or a subreaper) is not the batch.
      if (helper) break;
    }
  }
  const clientTrees = new Set<number>();
  for (const proc of descendants(options.rootPids, table)) {
    if (clientComms.has(proc.comm)) clientTrees.add(proc.pid);
    // A client's own children (e.g. a `podman run` helper) share the client's placement.
    if (clientTrees.has(proc.ppid) || clientComms.has(proc.comm)) {
      if (options.clientsInBudget) add(proc, 'launched'); // add() gives a client comm its own role
      else byDesign.set(proc.pid, proc);
    } else add(proc, RUNTIME_HELPER.test(proc.comm) ? 'runtime-helper' : 'launched');
  }
  return { expected: [...expected.values()], byDesign: [...byDesign.values()] };
}

/** Move runtime helpers that are outside into the budget (docker's containerd-shim). Returns who moved. */
export function adoptHelpers(budget: CgroupBudget, expected: readonly ExpectedProcess[]): { pid: number; comm: string }[] {
  const moved: { pid: number; comm: string }[] = [];
  for (const { info, role } of expected) {
    if (role !== 'runtime-helper' || budget.contains(info.pid) !== false) continue;
    budget.adopt(info.pid);
    moved.push({ pid: info.pid, comm: info.comm });
  }
  return moved;
}

export function checkMembership(budget: CgroupBudget, expected: readonly ExpectedProcess[], byDesign: readonly ProcInfo[] = []): MembershipReport {
  const outside: MemberCheck[] = [];
  let checked = 0;
  for (const { info, role } of expected) {
    const cgroups = procCgroups(info.pid);
    if (cgroups === null) continue; // exited since the snapshot: nothing left to escape
    checked++;
    const verdict = budget.containsCgroups(cgroups);
    if (!verdict.inside) outside.push({ pid: info.pid, comm: info.comm, role, where: verdict.where });
  }
  return { checked, outside, outsideByDesign: byDesign.map((p) => ({ pid: p.pid, comm: p.comm })), adopted: [] };
}

export function describeOutside(report: MembershipReport): string {
  return report.outside.map((m) => `${m.comm}[${m.pid}] (${m.role}) in ${m.where}`).join(', ');
}
