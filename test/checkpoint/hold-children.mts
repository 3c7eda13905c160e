/**
 * Test helper process (run by kill-and-clean.test.ts): checkpoints one parent per mechanism named on
 * the command line, restores 2 children each, prints HELD <runId> and waits to be killed with -9.
 */
import { createCheckpointMechanism } from '../../executors/checkpoint/registry.ts';
import type { Sandbox } from '../../executors/checkpoint/mechanism.ts';
import { makeCheckpointRun } from './checkpoint-context.ts';

const test = await makeCheckpointRun('ckhold');
const held: Sandbox[] = [];
for (const backend of process.argv.slice(2)) {
  const mechanism = createCheckpointMechanism(backend as never, null)!;
  await mechanism.prepare(test.run);
  const trial = test.trial(`hold-${backend}`);
  const parent = await mechanism.startParent(trial);
  await parent.channel.ready;
  await parent.channel.request({ op: 'write', path: 'x.txt', data: 'x' });
  await mechanism.quiesce(parent);
  const image = await mechanism.checkpoint(trial, parent);
  for (const index of [0, 1]) {
    const child = await mechanism.restore(trial, image, index);
    await child.channel.ready;
    held.push(child);
  }
}
process.stdout.write(`HELD ${test.run.runId}\n`);
setInterval(() => undefined, 60_000);
