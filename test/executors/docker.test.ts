/** The docker executor against a real engine: a private harness dockerd unless DOCKER_HOST is set. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { containersOfRun, IMAGE_LABEL, taskImageTag } from '../../executors/container-common.ts';
import { createDockerExecutor, dockerCli } from '../../executors/docker.ts';
import { acquireDockerd, dockerdPaths, engineAnswers, startedByFile } from '../../executors/dockerd-manager.ts';
import { isAlive } from '../../harness/controls/proc-tree.ts';
import { containerCases } from './container-harness.ts';
import { usePreparedExecutor } from '../support/trial-fixture.ts';

const probe = await createDockerExecutor().probe();
const external = Boolean(process.env.DOCKER_HOST);

describe('dockerd paths', () => {
  it('keep every unix socket under the 108-byte limit, moving them to /tmp for a long $SANDBENCH_HOME', () => {
    const short = dockerdPaths('/root/.cache/sandbench');
    expect(short.socket).toBe('/root/.cache/sandbench/docker/docker.sock');
    const long = dockerdPaths(`/srv/${'very-long-directory-name/'.repeat(5)}sandbench`);
    expect(long.socket).toMatch(/^\/tmp\/sandbench-dockerd-[0-9a-f]{12}\/docker\.sock$/);
    expect(`${long.execRoot}/containerd/containerd.sock.ttrpc`.length).toBeLessThan(108);
    // Data (images) stay under $SANDBENCH_HOME either way.
    expect(long.dataRoot.startsWith('/srv/')).toBe(true);
  });
});

describe.skipIf(!probe.available)('docker executor', () => {
  const prepared = usePreparedExecutor('dock', createDockerExecutor);

  it('probe records client, daemon and containerd versions, or how the daemon will be started', () => {
    expect(probe.version).toMatch(/\d+\.\d+/);
    expect(probe.details.engine).toBeTruthy();
  });

  it('runs on the private dockerd (own data root, socket under $SANDBENCH_HOME) unless DOCKER_HOST is given', async () => {
    const lease = prepared.executor.dockerdLease();
    if (external) {
      expect(lease).toBeNull();
      return;
    }
    expect(lease).not.toBeNull();
    const paths = dockerdPaths(prepared.test.run.stateDir);
    expect(lease!.host).toBe(paths.host);
    expect(paths.socket.length).toBeLessThan(108);
    expect(await engineAnswers(dockerCli(), paths.host)).toBe(true);
    const pid = Number(readFileSync(paths.pidFile, 'utf8'));
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--data-root', paths.dataRoot, '--iptables=false', '--bridge=none']));
    expect(prepared.test.run.cleanup.pending().map((handle) => handle.kind)).toContain('daemon');
    if (lease!.startedHere) expect(existsSync(startedByFile(paths, prepared.test.run.runId))).toBe(true);
  });

  it('imports the task image tagged and labelled by digest', async () => {
    const engine = prepared.executor.engine()!;
    const tag = taskImageTag(prepared.test.run.image.digest);
    const inspect = await execa(engine.cli, [...engine.globalArgs, 'image', 'inspect', '--format', `{{index .RootFS.Layers 0}} {{index .Config.Labels "${IMAGE_LABEL}"}}`, tag]);
    expect(inspect.stdout.trim()).toBe(`${prepared.test.run.image.digest} 1`);
    expect(prepared.executor.imageFacts()).toMatchObject({ image_tag: tag, layer_digest: prepared.test.run.image.digest, image_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });

  containerCases(() => prepared.executor, () => prepared.test);

  it('leaves no container of the run behind', async () => {
    expect(await containersOfRun(prepared.executor.engine()!, prepared.test.run.runId)).toEqual([]);
  });

  it.skipIf(external)('teardown stops the private dockerd unless another live run still holds it', async () => {
    const paths = dockerdPaths(prepared.test.run.stateDir);
    const pid = Number(readFileSync(paths.pidFile, 'utf8'));
    await prepared.executor.teardown();
    const otherHolders = existsSync(paths.leasesDir) ? readdirSync(paths.leasesDir) : [];
    expect(otherHolders.some((name) => name.startsWith(`${prepared.test.run.runId}.`))).toBe(false);
    if (otherHolders.length === 0) {
      expect(isAlive(pid)).toBe(false);
      expect(await engineAnswers(dockerCli(), paths.host, 3_000)).toBe(false);
      expect(readdirSync(paths.base).filter((name) => name.startsWith('dockerd-sandbench-'))).toEqual([]);
      expect(existsSync(join(paths.base, 'dockerd.pid'))).toBe(false);
    } else {
      expect(await engineAnswers(dockerCli(), paths.host)).toBe(true);
    }
    expect(prepared.test.run.cleanup.pending()).toEqual([]);
  }, 60_000);

  it.skipIf(external)('a holder killed with -9 does not pin the daemon: the next last release stops it', async () => {
    const paths = dockerdPaths(prepared.test.run.stateDir);
    const holderScript = `
      import { acquireDockerd } from './executors/dockerd-manager.ts';
      await acquireDockerd({ stateDir: ${JSON.stringify(prepared.test.run.stateDir)}, runId: 'victim-${prepared.test.run.runId}', cli: ${JSON.stringify(dockerCli())}, log: () => {} });
      console.log('HOLDING');
      setInterval(() => {}, 1000);`;
    const holder = execa('node', ['--import', 'tsx', '--input-type=module', '-e', holderScript], { cwd: process.cwd(), reject: false });
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('HOLDING') && resolve());
      void holder.then((result) => reject(new Error(`holder exited: ${result.stderr}`)));
    });
    holder.kill('SIGKILL');
    await holder;
    const lease = await acquireDockerd({ stateDir: prepared.test.run.stateDir, runId: prepared.test.run.runId, cli: dockerCli(), log: () => undefined });
    const pid = lease.pid!;
    const stopped = await lease.release();
    const others = existsSync(paths.leasesDir) ? readdirSync(paths.leasesDir) : [];
    expect(others.some((name) => name.startsWith('victim-'))).toBe(false);
    if (others.length === 0) {
      expect(stopped).toBe(true);
      expect(isAlive(pid)).toBe(false);
    }
  }, 120_000);

  it.skipIf(external)('two holders of one run in one process (executor and checkpoint mechanism): one release leaves the daemon to the other', async () => {
    const options = { stateDir: prepared.test.run.stateDir, runId: prepared.test.run.runId, cli: dockerCli(), log: () => undefined };
    const first = await acquireDockerd(options);
    const second = await acquireDockerd(options);
    expect(await first.release()).toBe(false);
    expect(await engineAnswers(dockerCli(), second.host)).toBe(true);
    await second.release();
  }, 120_000);
});
