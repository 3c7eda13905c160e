/**
 * The fork prefix strategy's machinery on a real staged checkpoint: one prepared parent, K = 3
 * children restored from its frozen files, each running its own command through the attempt
 * program and answering with its candidate (the diff against the task baseline), then nothing left
 * behind. Mechanisms that do not honour attach are refused (the kind records them not applicable). ~10 s.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStagedCheckpoint } from '../../executors/checkpoint/staged-mechanism.ts';
import { createHostCheckpoint } from '../../executors/checkpoint/host-mechanism.ts';
import { createExecutor } from '../../executors/registry.ts';
import { attemptProgram, attemptProgramMount, ForkGroup, forkedExecutor, untar } from '../../experiments/rollout-step/fork-group.ts';
import { forkUnavailableReason } from '../../experiments/rollout-step/prefix-fork.ts';
import type { TrialContext } from '../../harness/contracts/executor.ts';
import { checkpointLeftovers, makeCheckpointRun, type CheckpointTestRun } from '../checkpoint/checkpoint-context.ts';

let test: CheckpointTestRun;
beforeAll(async () => {
  test = await makeCheckpointRun('rsfork');
}, 300_000);
afterAll(async () => {
  await test?.dispose();
});

const K = 3;

describe('fork prefix on a real staged checkpoint', () => {
  it('prepares once, restores K children that each run their attempt, collects K distinct candidates, and leaves nothing', async () => {
    const mechanism = createStagedCheckpoint(null);
    await mechanism.prepare(test.run);
    const trial = { ...test.trial('fork-group'), program: attemptProgram, attach: { mounts: [attemptProgramMount()], service: null, budget: null } };
    const group = new ForkGroup(mechanism, trial, K);
    const executor = createExecutor('staged', null)!;
    const results = await Promise.all(
      Array.from({ length: K }, async (_, member) => {
        const view = forkedExecutor(executor, group, null);
        const attemptTrial = { baselineWorkspace: test.baseline, timeoutMs: 30_000, trialDir: join(trial.dir, `attempt-${member}`) } as TrialContext;
        const binding = await view.stageWorkspace(attemptTrial);
        const running = await view.launch(attemptTrial, {
          argv: ['/bin/sh', '-c', 'printf "%s\\n" "$MEMBER" > answer.txt && rm docs/old.md && echo "# edited" >> README.md && echo "done $MEMBER"'],
          env: { MEMBER: `member-${member}` },
          stdin: 'none',
        });
        const exit = await running.exit;
        const candidate = await view.collect(attemptTrial, binding);
        const answer = (await candidate.read('answer.txt'))?.toString();
        const phases = view.phases();
        await view.finishTrial(attemptTrial);
        await group.release(); // the attempt's last try is over
        return { exit, changed: [...candidate.changed].sort(), answer, phases, stdout: running.lines.map((l) => l.text) };
      }),
    );
    for (const [member, result] of results.entries()) {
      expect(result.exit.exitCode, `${result.exit.infraFailure?.reason ?? ""} ${result.stdout.join(" | ")}`).toBe(0);
      // the workspace's program files never join the candidate; the README edit, the new file and the deletion do
      expect(result.changed).toEqual(['README.md', 'answer.txt', 'docs/old.md (deleted)']);
      expect(result.answer).toBe(`member-${member}\n`);
      expect(result.stdout).toContain(`done member-${member}`);
      expect(result.phases!.restore_ms).toBeGreaterThan(0);
      expect(result.phases!.attempt_ms).toBeGreaterThan(0);
    }
    // one parent, one checkpoint, K distinct children
    expect(new Set(results.map((r) => r.phases!.checkpoint_ms)).size).toBe(1);
    expect(new Set(results.map((r) => r.phases!.child))).toEqual(new Set([0, 1, 2]));
    expect(await checkpointLeftovers(test)).toEqual([]);
  }, 120_000);

  it('a mechanism that does not honour attach is refused with the reason the kind records', () => {
    expect(() => new ForkGroup(createHostCheckpoint(null), test.trial('refused'), 1)).toThrow(/does not honour MechanismTrial.attach/);
    expect(forkUnavailableReason('host', null)).toMatch(/host checkpoint mechanism \(preserves files\) does not honour MechanismTrial.attach/);
    expect(forkUnavailableReason('staged', null)).toBeNull();
  });

  it('reads back the archive that Python tarfile writes, long (pax) names included', async () => {
    const long = `${'deep/'.repeat(30)}file.txt`;
    const script = `import io,sys,tarfile\nb=io.BytesIO()\nt=tarfile.open(fileobj=b,mode='w')\nfor name,data in [('a.txt',b'one'),(sys.argv[1],b'two'*300)]:\n  i=tarfile.TarInfo(name); i.size=len(data); t.addfile(i,io.BytesIO(data))\nt.close()\nsys.stdout.buffer.write(b.getvalue())`;
    const { stdout } = await execa('python3', ['-c', script, long], { encoding: 'buffer' });
    const files = untar(Buffer.from(stdout));
    expect([...files.keys()]).toEqual(['a.txt', long]);
    expect(files.get(long)!.toString()).toBe('two'.repeat(300));
  });
});
