/** Which processes a batch is expected to keep inside its budget, from synthetic process tables. */
import { describe, expect, it } from 'vitest';
import { expectedProcesses } from '../../harness/controls/budget-membership.ts';
import type { ProcInfo } from '../../harness/controls/proc-tree.ts';
import { BUILTIN_BACKENDS } from '../../executors/registry.ts';

/** The client commands the built-in backends' traits name (podman, docker). */
const clientCommands = BUILTIN_BACKENDS.flatMap((backend) => backend.traits.clientCommand ?? []);

const HARNESS = 100;
const p = (pid: number, ppid: number, comm: string, cmdline = comm): ProcInfo => ({ pid, ppid, comm, cmdline });
const roles = (table: ProcInfo[], rootPids: number[], clientsInBudget = false) => {
  const { expected, byDesign } = expectedProcesses({ rootPids, payloadToken: 'TOK', harnessPids: [HARNESS], clientsInBudget, clientCommands }, table);
  return { expected: Object.fromEntries(expected.map((e) => [e.info.pid, `${e.info.comm}:${e.role}`])), byDesign: byDesign.map((b) => b.pid).sort() };
};

describe('expected batch processes', () => {
  it('staged: the whole launched tree up to the harness', () => {
    const table = [p(1, 0, 'init'), p(HARNESS, 1, 'node'), p(200, HARNESS, 'unshare', 'unshare ... python3 w.py --token TOK-w0'), p(201, 200, 'bwrap', 'bwrap ... TOK-w0'), p(202, 201, 'python3', 'python3 w.py --token TOK-w0'), p(203, 202, 'git', 'git status')];
    const r = roles(table, [200]);
    expect(r.expected).toEqual({ 200: 'unshare:payload', 201: 'bwrap:payload', 202: 'python3:payload', 203: 'git:launched' });
  });

  it('docker: the shim is a runtime helper and the walk stops there, even under a subreaper', () => {
    const table = [
      p(1, 0, 'init'), p(50, 1, 'supervisor'), p(HARNESS, 50, 'node'), p(300, HARNESS, 'docker', 'docker run ... --token TOK-w0'),
      p(400, 50, 'containerd-shim', 'containerd-shim-runc-v2 -id abc'), p(401, 400, 'python3', 'python3 w.py --token TOK-w0'),
    ];
    const r = roles(table, [300]);
    expect(r.expected).toEqual({ 400: 'containerd-shim:runtime-helper', 401: 'python3:payload' });
    expect(r.byDesign).toEqual([300]);
  });

  it('podman: conmon is expected inside, the podman client is outside by design', () => {
    const table = [p(1, 0, 'init'), p(HARNESS, 1, 'node'), p(300, HARNESS, 'podman', 'podman run ... TOK-w1'), p(310, 1, 'conmon', 'conmon --cid x'), p(311, 310, 'python3', 'python3 w.py --token TOK-w1')];
    const r = roles(table, [300]);
    expect(r.expected).toEqual({ 310: 'conmon:runtime-helper', 311: 'python3:payload' });
    expect(r.byDesign).toEqual([300]);
  });

  it('container clients inside the budget (density.container_clients: inside): the client and its children are expected, none outside by design', () => {
    const table = [
      p(1, 0, 'init'), p(HARNESS, 1, 'node'), p(300, HARNESS, 'podman', 'podman run ... TOK-w1'), p(301, 300, 'podman', 'podman (helper)'), p(302, 301, 'sh', 'sh -c x'),
      p(310, 1, 'conmon', 'conmon --cid x'), p(311, 310, 'python3', 'python3 w.py --token TOK-w1'),
    ];
    const r = roles(table, [300], true);
    expect(r.expected).toEqual({ 300: 'podman:client', 301: 'podman:client', 302: 'sh:launched', 310: 'conmon:runtime-helper', 311: 'python3:payload' });
    expect(r.byDesign).toEqual([]);
    // The default keeps the whole client tree outside by design.
    expect(roles(table, [300]).byDesign).toEqual([300, 301, 302]);
  });

  it('qemu: the VMM is found through the launched tree (the payload runs in the guest)', () => {
    const table = [p(1, 0, 'init'), p(HARNESS, 1, 'node'), p(500, HARNESS, 'qemu-system-x86', 'qemu-system-x86_64 -M microvm ...')];
    expect(roles(table, [500]).expected).toEqual({ 500: 'qemu-system-x86:runtime-helper' });
  });
});
