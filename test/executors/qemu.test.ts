/**
 * The QEMU executors against real QEMU (TCG here, KVM where it works): guest protocol, candidate
 * files from the scratch disk, stdin over the serial console, no NIC, timeout cleanup. Each TCG boot
 * costs seconds, so the boots are few and each checks several things.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExitInfo, Executor, OutputLine, RunningTrial } from '../../harness/contracts/executor.ts';
import { createQemuMicrovmExecutor } from '../../executors/qemu-microvm.ts';
import { createExecutor } from '../../executors/registry.ts';
import { classifyExit, exitCodeFromLines } from '../../executors/vm/console-protocol.ts';
import { writeCpioNewc } from '../../executors/vm/cpio-newc.ts';
import { withGuestConsole } from '../../executors/vm/guest-console.ts';
import { peekGuestKernel } from '../../executors/vm/guest-kernel.ts';
import { indexModules, isDynamicElf, moduleLoadOrder } from '../../executors/vm/initramfs.ts';
import { MICROVM, Q35, qemuArgv, type VmLaunchSpec } from '../../executors/vm/qemu-argv.ts';
import { renderTaskFile } from '../../executors/vm/trial-disks.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { makeTestRun, makeTrial, runOne, sh, waitForLine, type TestRun } from '../support/trial-fixture.ts';

const line = (text: string, stream: OutputLine['stream'] = 'stdout'): OutputLine => ({ stream, text, tNs: 1n });
const exitInfo = { exitCode: null, signal: null, timedOut: false, tExitNs: 2n };

describe('qemu executor pieces (no boot)', () => {
  it('renders a task file whose argv and env survive shell quoting exactly', async () => {
    const argv = ['python3', '-c', `print("it's $HOME \\n")`, 'two words', ''];
    const text = renderTaskFile({ argv, env: { QUOTE: `a'b"c $x` }, stdin: 'pipe' });
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-qemu-test-'));
    try {
      writeFileSync(join(dir, 'task'), text);
      const { stdout } = await execa('busybox', ['sh', '-c', `. ${join(dir, 'task')}; echo "$SB_STDIN"; printf '%s\\0' "$@"`]);
      const [stdin, words] = [stdout.slice(0, stdout.indexOf('\n')), stdout.slice(stdout.indexOf('\n') + 1)];
      expect(stdin).toBe('pipe');
      const parsed = words.split('\0').slice(0, -1);
      expect(parsed.slice(0, 3)).toEqual(['/usr/bin/env', '-i', '--chdir=/workspace']);
      expect(parsed).toContain(`QUOTE=a'b"c $x`);
      expect(parsed).toContain('HOME=/tmp');
      expect(parsed.slice(-argv.length)).toEqual(argv);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes a newc archive cpio reads back, with a device node and a symlink', async () => {
    const archive = writeCpioNewc([
      { kind: 'dir', path: 'dev', mode: 0o755 },
      { kind: 'chardev', path: 'dev/console', mode: 0o600, major: 5, minor: 1 },
      { kind: 'file', path: 'init', mode: 0o755, data: Buffer.from('#!/bin/sh\n') },
      { kind: 'symlink', path: 'sh', target: 'busybox' },
    ]);
    expect(archive.length % 4).toBe(0);
    const { stdout } = await execa('cpio', ['-itv', '--quiet'], { input: archive });
    const rows = stdout.split('\n');
    expect(rows[0]).toMatch(/^drwxr-xr-x .* dev$/);
    expect(rows[1]).toMatch(/^crw------- .* 5,\s+1 .* dev\/console$/);
    expect(rows[2]).toMatch(/^-rwxr-xr-x .* 10 .* init$/);
    expect(rows[3]).toMatch(/^lrwxrwxrwx .* sh -> busybox$/);
  });

  it('tells a static busybox from a dynamically linked binary', () => {
    expect(isDynamicElf(readFileSync('/bin/busybox'))).toBe(false);
    expect(isDynamicElf(readFileSync(process.execPath))).toBe(true);
    expect(() => isDynamicElf(Buffer.from('#!/bin/sh\n'.padEnd(80)))).toThrow(/ELF/);
  });

  it('parses REFERENCE_EXIT and classifies VM infrastructure failures', () => {
    expect(exitCodeFromLines([line('REFERENCE_EXIT 9'), line('x'), line('REFERENCE_EXIT 3'), line('REFERENCE_EXIT 5', 'stderr')])).toBe(3);
    expect(exitCodeFromLines([line('REFERENCE_READY')])).toBeNull();
    expect(classifyExit(exitInfo, [line('boot noise')])).toMatchObject({ category: 'setup_failed', reason: expect.stringContaining('without REFERENCE_EXIT') });
    expect(classifyExit(exitInfo, [line('SANDBENCH_INIT_ERROR cannot mount the image disk')])).toEqual({ category: 'setup_failed', reason: 'guest init: cannot mount the image disk' });
    expect(classifyExit({ ...exitInfo, exitCode: 137 }, [line('SANDBENCH_GUEST_OOM 1'), line('REFERENCE_EXIT 137')])).toMatchObject({ category: 'oom' });
    expect(classifyExit({ ...exitInfo, exitCode: 0 }, [line('REFERENCE_EXIT 0')])).toBeUndefined();
    expect(classifyExit({ ...exitInfo, timedOut: true }, [])).toBeUndefined();
  });

  it('console wrapper: queues stdin until the guest tty is open, hides protocol lines, drops only the epilogue newline', async () => {
    const raw: OutputLine[] = [];
    const listeners: ((l: OutputLine) => void)[] = [];
    const written: string[] = [];
    let finish: (info: ExitInfo) => void = () => undefined;
    const fake: RunningTrial = {
      tSpawnNs: 0n,
      lines: raw,
      onLine: (listener) => {
        raw.forEach(listener);
        listeners.push(listener);
      },
      writeStdin: (text) => written.push(text),
      closeStdin: () => written.push('<closed>'),
      exit: new Promise<ExitInfo>((resolve) => (finish = resolve)),
      kill: async () => undefined,
      rootPids: () => [],
    };
    const emit = (text: string, stream: OutputLine['stream'] = 'stdout') => {
      const l = line(text, stream);
      raw.push(l);
      listeners.forEach((listener) => listener(l));
    };
    const wrapped = withGuestConsole(fake);
    wrapped.writeStdin('GO\n');
    wrapped.closeStdin();
    expect(written).toEqual([]);
    emit('SANDBENCH_STDIN_OPEN');
    expect(written).toEqual(['GO\n', '\x04', '<closed>']);
    ['a', '', 'err'].forEach((text, index) => emit(text, index === 2 ? 'stderr' : 'stdout'));
    emit('');
    emit('REFERENCE_EXIT 0');
    emit('reboot: Restarting system');
    finish({ ...exitInfo, exitCode: 0 });
    await wrapped.exit;
    expect(wrapped.lines.map((l) => `${l.stream}:${l.text}`)).toEqual(['stdout:a', 'stderr:err', 'stdout:', 'stdout:REFERENCE_EXIT 0']);
  });

  it('builds qemu argv without any NIC, with the machine transport and TCG flags', () => {
    const spec: VmLaunchSpec = {
      name: 'sandbench-r-t', profile: MICROVM, accelerator: 'tcg', memoryMiB: 256, vcpus: 2, kernelPath: '/k', initrdPath: '/i',
      disks: { root: '/r,odd', scratch: '/s', task: '/t' }, tscKhz: 2_100_000,
    };
    const micro = qemuArgv(spec).join(' ');
    expect(micro).toContain('-M microvm -accel tcg,tb-size=32 -smp 2 -m 256 -nodefaults');
    expect(micro).toContain('-nic none');
    expect(micro).not.toMatch(/-netdev|-net |virtio-net/);
    expect(micro).toContain('file=/r,,odd');
    expect(micro).toContain('virtio-blk-device,drive=root,serial=sbroot');
    expect(micro).toContain('tsc_early_khz=2100000 tsc=reliable');
    expect(micro).toContain('reboot=t');
    expect(micro).toContain('-no-reboot');
    const q35 = qemuArgv({ ...spec, profile: Q35, accelerator: 'kvm' }).join(' ');
    expect(q35).toContain('-M q35 -accel kvm -cpu host');
    expect(q35).toContain('virtio-blk-pci,drive=scratch,serial=sbscratch');
    expect(q35).not.toContain('tsc_early_khz');
  });
});

const microvm = createQemuMicrovmExecutor();
const microProbe = await microvm.probe();

describe.skipIf(!microProbe.available)('qemu-microvm executor (real boots)', () => {
  let test: TestRun;
  let listener: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    test = await makeTestRun('qemu');
    await microvm.prepare(test.run);
    listener = createServer((socket) => {
      connections += 1;
      socket.end('hello\n');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  }, 600_000);

  afterAll(async () => {
    listener?.close();
    await microvm.teardown();
    expect(test.run.cleanup.pending()).toEqual([]);
    await test?.dispose();
  }, 120_000);

  it('probe records qemu, the accelerator with its reason, and the kernel digest', () => {
    expect(microProbe.version).toMatch(/^qemu \d+\.\d+/);
    expect(microProbe.details.accelerator).toMatch(/^(kvm|tcg)$/);
    expect(microProbe.details.accelerator_reason.length).toBeGreaterThan(0);
    expect(microProbe.details.kernel_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(microProbe.details.kernel_version).toMatch(/cloud-amd64$/);
  });

  it('loads the virtio modules after their dependencies', async () => {
    const kernel = peekGuestKernel(stateDir())!;
    const order = await moduleLoadOrder(['virtio_pci', 'virtio_blk'], indexModules(kernel.modulesDir));
    expect(order.indexOf('virtio_ring')).toBeLessThan(order.indexOf('virtio'));
    expect(order.indexOf('virtio')).toBeLessThan(order.indexOf('virtio_pci'));
    expect(order.indexOf('virtio_pci_modern_dev')).toBeLessThan(order.indexOf('virtio_pci'));
    expect(order.at(-1)).toBe('virtio_blk');
  });

  it('runs a task: markers, stderr, stdin, non-zero exit, candidate files from the scratch disk, no NIC', async () => {
    const before = treeDigest(test.baseline);
    const script = [
      'echo REFERENCE_READY',
      'echo to-stderr >&2',
      'read word',
      'echo "got:$word"',
      'printf written > w.txt',
      'echo more >> sub/b.txt',
      'rm a.txt',
      'echo "nics:$(ls /sys/class/net | tr "\\n" " ")"',
      `python3 -c "import socket\ntry:\n  socket.create_connection(('127.0.0.1',${port}),timeout=3); print('CONNECTED')\nexcept OSError as e:\n  print('REFUSED', e)"`,
      'echo REFERENCE_RESULT "{\\"pwd\\":\\"$(pwd)\\"}"',
      'exit 3',
    ].join('\n');
    const out = await runOne(microvm, makeTrial(test, { timeoutMs: 240_000 }), sh(script, 'pipe'), async (running) => {
      await waitForLine(running, (text) => text === 'REFERENCE_READY');
      running.writeStdin('GO\n');
    });
    expect(out.exit.infraFailure).toBeUndefined();
    expect(out.exit.exitCode).toBe(3);
    const ready = out.running.lines.find((l) => l.text === 'REFERENCE_READY')!;
    expect(ready.tNs).toBeGreaterThan(out.running.tSpawnNs);
    expect(out.stdout).toContain('got:GO');
    expect(out.stdout).toContain('REFERENCE_RESULT {"pwd":"/workspace"}');
    // The task's output ended with a newline: no empty line from the init's epilogue.
    expect(out.stdout.slice(-2)).toEqual(['REFERENCE_RESULT {"pwd":"/workspace"}', 'REFERENCE_EXIT 3']);
    expect(out.stdout.some((text) => text.includes('SANDBENCH_STDIN_OPEN'))).toBe(false);
    expect(out.stderr).toContain('to-stderr');
    expect(out.stdout).toContain('nics:lo ');
    expect(out.stdout.join('\n')).toMatch(/^REFUSED/m);
    expect(connections).toBe(0);
    expect(out.binding).toEqual({ hostPath: test.baseline, claimsStaging: true });
    expect(out.candidates.changed).toEqual(['a.txt (deleted)', 'sub/b.txt', 'w.txt']);
    expect((await out.candidates.read('w.txt'))?.toString()).toBe('written');
    expect((await out.candidates.read('sub/b.txt'))?.toString()).toBe('nested\nmore\n');
    expect(await out.candidates.read('a.txt')).toBeNull();
    expect(out.candidates.facts.accelerator).toBe(microProbe.details.accelerator);
    expect(treeDigest(test.baseline)).toBe(before);
  }, 300_000);

  it('a timeout kills qemu and leaves no process and no trial files; cpus pin the VMM', async () => {
    const trial = makeTrial(test, { timeoutMs: 6_000, controls: { cpus: '1', memoryMiB: 128 } });
    const binding = await microvm.stageWorkspace(trial);
    const running = await microvm.launch(trial, sh('echo REFERENCE_READY; sleep 600'));
    const name = `sandbench-${test.run.runId}-${trial.trialId}`;
    const pid = running.rootPids()[0]!;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const args = readdirSync('/proc').includes(String(pid)) ? execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }) : '';
    expect(args).toContain(`-name ${name}`);
    expect(args).toContain('-m 128');
    expect(execFileSync('taskset', ['-cp', String(pid)], { encoding: 'utf8' })).toMatch(/list: 1$/m);
    const exit = await running.exit;
    expect(exit.timedOut).toBe(true);
    const leftovers = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((row) => row.includes(name));
    expect(leftovers).toEqual([]);
    await microvm.collect(trial, binding);
    await microvm.finishTrial(trial);
    expect(existsSync(join(trial.trialDir, name))).toBe(false);
    // Guest RAM the kernel cannot boot in is refused with the fix, not a silent reset.
    const tiny = makeTrial(test, { controls: { cpus: null, memoryMiB: 32 } });
    await microvm.stageWorkspace(tiny);
    await expect(microvm.launch(tiny, sh('true'))).rejects.toThrow(/at least 96 MiB/);
    await microvm.finishTrial(tiny);
  }, 120_000);
});

const q35: Executor = createExecutor('qemu-q35', null)!;
const q35Probe = await q35.probe();

describe.skipIf(!q35Probe.available)('qemu-q35 executor (real boot)', () => {
  let test: TestRun;
  beforeAll(async () => {
    test = await makeTestRun('qemuq');
    await q35.prepare(test.run);
  }, 600_000);
  afterAll(async () => {
    await q35.teardown();
    await test?.dispose();
  }, 120_000);

  it('boots a q35 PC over virtio-pci: exit 0, ready marker, a written file collected', async () => {
    const out = await runOne(q35, makeTrial(test, { timeoutMs: 240_000 }), sh('echo REFERENCE_READY; echo hi > new.txt; echo "pci:$(ls /sys/bus/pci/devices | wc -l)"; printf no-newline'));
    expect(out.exit.infraFailure).toBeUndefined();
    expect(out.exit.exitCode).toBe(0);
    expect(out.stdout).toContain('REFERENCE_READY');
    const pci = out.stdout.find((text) => text.startsWith('pci:'));
    expect(Number(pci?.slice(4))).toBeGreaterThan(0);
    // The last output line had no newline: the init's epilogue still starts REFERENCE_EXIT on its own line.
    expect(out.stdout.slice(-2)).toEqual(['no-newline', 'REFERENCE_EXIT 0']);
    expect(out.candidates.changed).toEqual(['new.txt']);
    expect((await out.candidates.read('new.txt'))?.toString()).toBe('hi\n');
    expect(out.candidates.facts).toMatchObject({ machine: 'q35', accelerator: q35Probe.details.accelerator });
  }, 300_000);
});
