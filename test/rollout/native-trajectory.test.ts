/**
 * What a rollout records beyond its candidate: the native trajectory (read from the collected
 * workspace, parsed with sandbench's own replay parser, a missing or broken one named), the PSS of
 * the sandbox's processes with the scope it covers (a real launched tree plus a real process outside
 * it in a real budget cgroup, as a container's supervisor and init are), and the rollout section's units surviving re-validation.
 * Fast (< 2 s): no sandbox is started here; the real CLI runs are in the README (host, staged,
 * podman, docker).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { CandidateFiles } from '../../harness/contracts/executor.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { applyOverrides } from '../../harness/spec/resolve-spec.ts';
import { parseSpecText } from '../../harness/spec/load-spec.ts';
import { SPEC_KINDS } from '../../experiments/registry.ts';
import { AGENT_NAMES, AGENTS, NATIVE_TRAJECTORIES } from '../../experiments/agent/agents.ts';
import { AGENT_FORMATS, REPLAY_AGENTS } from '../../experiments/replay/agents.ts';
import { NATIVE_COLLECT_ERROR, readTrajectory, trajectorySource, withRecorderUserEvent, parseTrajectory } from '../../experiments/rollout/native-trajectory.ts';
import { parseRolloutArm } from '../../experiments/rollout/rollout-arms.ts';
import { rolloutOptions } from '../../experiments/rollout/rollout-spec.ts';
import { cgroupPids, findDetachedRoot, startSandboxPss } from '../../experiments/rollout/sandbox-pss.ts';
import { PssCache } from '../../experiments/rollout/tree-pss.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';

const SAMPLES = join(PROJECT_ROOT, 'data', 'trajectories', 'samples');
const sample = (format: string) => readFileSync(join(SAMPLES, format, `task-0.${AGENT_FORMATS[format as keyof typeof AGENT_FORMATS].extension}`));

function collectedOf(files: Record<string, Buffer | string>): CandidateFiles {
  return { changed: Object.keys(files), read: async (path) => (path in files ? Buffer.from(files[path]!) : null), facts: {} };
}

describe('native trajectory of an attempt', () => {
  it('every agent CLI names a replay format sandbench parses, and a run-agent.sh file name', () => {
    const script = readFileSync(join(PROJECT_ROOT, 'experiments', 'agent', 'run-agent.sh'), 'utf8');
    for (const name of AGENT_NAMES) {
      const native = NATIVE_TRAJECTORIES[name];
      expect(REPLAY_AGENTS).toContain(native.format);
      expect(script, `${name}: run-agent.sh must write ${native.file}`).toContain(native.file);
      expect(trajectorySource(parseRolloutArm({ backend: 'host', variant: name })).path).toBe(`.sandbench-rollout/native/${native.file}`);
    }
    expect(trajectorySource(parseRolloutArm({ backend: 'host', variant: null }))).toMatchObject({ format: 'mini-swe-agent', path: '.sandbench-rollout/trajectory.json' });
  });

  it('a CLI trajectory that parses is kept byte for byte with its message count', async () => {
    const source = trajectorySource(parseRolloutArm({ backend: 'staged', variant: 'codex' }));
    const bytes = sample('codex');
    const checked = await readTrajectory(collectedOf({ [source.path]: bytes }), source, 'fixture 0');
    expect(checked.problem).toBeNull();
    expect(checked.content?.equals(bytes)).toBe(true);
    expect(checked.messages).toBeGreaterThan(2);
  });

  it('opencode: the real `run --format json` stream (1.18.33) parses once the recorder writes the prompt first', async () => {
    const stream = readFileSync(join(PROJECT_ROOT, 'test', 'rollout', 'fixtures', 'opencode-1.18.33-run-format-json.jsonl'), 'utf8');
    expect('problem' in parseTrajectory('opencode', stream)).toBe(true); // the run does not echo the prompt
    const source = trajectorySource(parseRolloutArm({ backend: 'host', variant: 'opencode' }));
    const checked = await readTrajectory(collectedOf({ [source.path]: stream }), source, 'write "the marker"\nnow');
    expect(checked.problem).toBeNull();
    const first = JSON.parse(checked.content!.toString('utf8').split('\n')[0]!);
    expect(first).toMatchObject({ type: 'user', sessionID: JSON.parse(stream.split('\n')[0]!).sessionID, parts: [{ type: 'text', text: 'write "the marker"\nnow' }] });
    expect(withRecorderUserEvent(stream, 'p').endsWith(stream)).toBe(true);
  });

  it('a truncated trajectory is a named parse problem; a missing one says what run-agent.sh found', async () => {
    const source = trajectorySource(parseRolloutArm({ backend: 'podman', variant: 'mini-swe-agent' }));
    const whole = sample('mini-swe-agent');
    const truncated = await readTrajectory(collectedOf({ [source.path]: whole.subarray(0, whole.length - 40) }), source, 'p');
    expect(truncated.problem).toMatch(/mini-swe-agent trajectory does not parse: .*not valid JSON/);
    expect(truncated.content).not.toBeNull(); // kept as evidence of what broke
    const missing = await readTrajectory(collectedOf({ [NATIVE_COLLECT_ERROR]: '0 session files matched /tmp/agent-home.x/**/trajectory.json: \n' }), source, 'p');
    expect(missing).toMatchObject({ content: null, messages: null });
    expect(missing.problem).toMatch(/no native trajectory at \.sandbench-rollout\/native\/mini-trajectory\.json .*0 session files matched/);
  });

  it('the built-in agent is checked by the same rule (mini-swe-agent format)', async () => {
    const source = trajectorySource(parseRolloutArm({ backend: 'host', variant: 'builtin' }));
    const codexInstead = await readTrajectory(collectedOf({ [source.path]: sample('codex') }), source, 'p');
    expect(codexInstead.problem).toMatch(/does not parse/);
    expect(AGENTS.codex.name).toBe('codex');
  });
});

describe('sandbox PSS and its scope', () => {
  // Real processes in a real budget cgroup, arranged as the backends arrange theirs.
  const children: ChildProcess[] = [];
  let budget: CgroupBudget | null = null;
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await budget?.destroy();
    budget = null;
  });
  const inBudget = (script: string, env: Record<string, string> = {}) => {
    const [cmd, ...args] = [...budget!.placement().enterArgv, 'sh', '-c', script];
    const child = spawn(cmd!, args, { stdio: 'ignore', env: { PATH: process.env.PATH!, ...env } });
    children.push(child);
    return child.pid!;
  };
  const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const newBudget = () => (budget = CgroupBudget.create({ runId: `t2pss${process.pid}`, label: Math.random().toString(36).slice(2, 8), cpus: '0', memoryMiB: 256 }));
  const budgetDir = () => {
    const layout = detectCgroupLayout();
    return `${layout.version === 1 ? layout.mounts.memory : layout.mount}${budget!.placement().cgroupParent}`;
  };

  it('a container-like sandbox: the marked processes outside the launched tree and their supervisor are added, and said', async () => {
    newBudget();
    const client = inBudget('sleep 30; true'); // the engine client: no marker
    // the supervisor (no marker) runs the "container init" (marked) and its child; another attempt's container beside it
    inBudget('MARK=attempt-1 sh -c "sleep 30; true"; true');
    inBudget('MARK=attempt-2 sh -c "sleep 30; true"; true');
    await settle(200);
    const sampler = startSandboxPss({ launched: () => [client], marker: 'MARK=attempt-1', budgetDir: budgetDir() }, 20);
    await settle(300);
    const report = sampler.stop();
    expect(report.samples).toBeGreaterThan(3);
    expect(report.scope).toBe('launched tree (sh) + sh + container tree');
    expect(report.detachedPeakKiB).toBeGreaterThan(0);
    expect(report.peakKiB!).toBeGreaterThan(Math.max(report.launchedPeakKiB!, report.detachedPeakKiB!));
    expect(report.peakKiB!).toBeLessThanOrEqual(report.launchedPeakKiB! + report.detachedPeakKiB!);
    // the other attempt's container is not counted: its tree alone is about as big as ours
    const other = findDetachedRoot(cgroupPids(budgetDir()), 'MARK=attempt-2', new Set([client]));
    const ours = findDetachedRoot(cgroupPids(budgetDir()), 'MARK=attempt-1', new Set([client]));
    expect(other && ours && other.root !== ours.root).toBe(true);
  });

  it('a host-like sandbox carries the marker in its launched tree: the tree is the sandbox; a VM-like one shows none on the host', async () => {
    newBudget();
    const host = inBudget('sleep 30; true', { MARK: 'attempt-3' });
    const qemu = inBudget('sleep 30; true');
    await settle(200);
    const hostPss = startSandboxPss({ launched: () => [host], marker: 'MARK=attempt-3', budgetDir: budgetDir() }, 20);
    const vmPss = startSandboxPss({ launched: () => [qemu], marker: 'MARK=attempt-4', budgetDir: budgetDir() }, 20);
    await settle(150);
    expect(hostPss.stop()).toMatchObject({ scope: 'launched tree (sh)', detachedPeakKiB: null });
    const vm = vmPss.stop();
    expect(vm.scope).toBe('launched tree (sh); no other process of this attempt seen on the host');
    expect(vm.peakKiB).toBe(vm.launchedPeakKiB);
  });
});

describe('rollout section units', () => {
  it('durations and sizes survive the re-validation every run does (500 ms stays 500 ms, not 500 s)', () => {
    const spec = parseSpecText('t.yaml', 'name: t\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 60s\nrollout:\n  tool_timeout: 20s\n  budget_memory: 1GiB\n  pss_interval: 500ms\n', SPEC_KINDS);
    const again = applyOverrides('t.yaml', spec, {}, SPEC_KINDS);
    expect(rolloutOptions(again)).toMatchObject({ pss_interval: 500, tool_timeout: 20_000, scoring_timeout: 60_000, budget_memory: 1024, vm_memory: 256 });
    expect(rolloutOptions(applyOverrides('t.yaml', again, {}, SPEC_KINDS))).toEqual(rolloutOptions(spec));
  });
});

describe('PSS readings reused while a process is unchanged', () => {
  it('re-reads smaps_rollup only after the resident size moves or the reading ages', async () => {
    // a child that says when it is up and then only waits (a `sleep` read while its loader still maps libraries moves)
    const child = spawn('python3', ['-c', 'import sys\nprint("ok", flush=True)\nsys.stdin.read()'], { stdio: ['pipe', 'pipe', 'ignore'] });
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    try {
      const cache = new PssCache(256, 50);
      const first = cache.pssOf(child.pid!, 0);
      expect(cache.pssOf(child.pid!, 10)).toBe(first);
      expect({ reads: cache.reads, reuses: cache.reuses }).toEqual({ reads: 1, reuses: 1 });
      cache.pssOf(child.pid!, 60); // older than maxAgeMs
      expect(cache.reads).toBe(2);
      expect(() => cache.pssOf(2 ** 22 + 1, 0)).toThrow(); // no such process
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('between re-reads adds the resident change to the last reading, and re-reads once it passes max(1 MiB, 5 %)', async () => {
    // A python child that maps N KiB of fresh anonymous memory per line on stdin, touches every page
    // and answers "ok". Fresh mappings, not heap, so the growth is exactly the pages touched whatever
    // python's allocator already holds resident.
    const script = 'import mmap, sys\nkeep=[]\nfor line in sys.stdin:\n    m = mmap.mmap(-1, int(line)*1024)\n    for i in range(0, len(m), 4096): m[i] = 1\n    keep.append(m)\n    print("ok", flush=True)';
    const child = spawn('python3', ['-c', script], { stdio: ['pipe', 'pipe', 'ignore'] });
    // Wait for the whole "ok" line: print() may send "ok" and its newline as two chunks, and a wait
    // for the next chunk would then end on the last answer's newline, before this growth (a CI failure).
    const answers = createInterface({ input: child.stdout! });
    const grow = async (kib: number) => {
      const answered = once(answers, 'line');
      child.stdin!.write(`${kib}\n`);
      await answered;
    };
    try {
      await grow(4);
      const cache = new PssCache(256, 60_000, 0.05);
      const first = cache.pssOf(child.pid!, 0);
      // 768 KiB = 192 pages: < 1 MiB and < 5 % of a ~10 MiB python, so estimated. The bounds leave room
      // for statm's per-CPU batched counters (kernels >= 6.2), though here it moved by exactly 192.
      await grow(768);
      const estimated = cache.pssOf(child.pid!, 1);
      expect(cache.reads).toBe(1);
      const fresh = new PssCache().pssOf(child.pid!, 0);
      expect(estimated).toBeGreaterThan(first + 256);
      expect(Math.abs(estimated - fresh)).toBeLessThan(256);
      await grow(8192); // past the threshold: read again
      const reread = cache.pssOf(child.pid!, 2);
      expect(cache.reads).toBe(2);
      // Most of the 8 MiB: under a busy suite the kernel may reclaim some of python's file-backed
      // pages meanwhile (a fresh clone's suite saw +5.7 MiB), which an exact bound would call a defect.
      expect(reread).toBeGreaterThan(fresh + 4096);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
