/**
 * Once per test run: build the task image before any file runs (parallel files never race a first
 * build), and afterwards prove the acceptance line "after the whole suite nothing sandbench
 * created remains": no container, VM, mount, dockerd, cgroup or scratch dir of a finished run.
 */
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { stopHarnessDockerd } from '../../executors/dockerd-manager.ts';
import { findLeftovers } from '../../harness/clean/find-leftovers.ts';
import { EXECUTOR_LEFTOVER_SOURCES as sources } from '../../executors/leftover-sources.ts';

export default async function setup(): Promise<() => Promise<void>> {
  await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}), (message) => process.stderr.write(`global-setup: ${message}\n`));
  const before = new Set((await findLeftovers({ stateDir: stateDir(), sources })).map((leftover) => `${leftover.kind} ${leftover.id}`));
  return async () => {
    // A daemon whose every holder crashed would otherwise outlive the suite.
    await stopHarnessDockerd(stateDir());
    const leftovers = (await findLeftovers({ stateDir: stateDir(), sources })).filter((leftover) => !before.has(`${leftover.kind} ${leftover.id}`));
    if (leftovers.length === 0) return;
    for (const leftover of leftovers) await leftover.remove().catch(() => undefined);
    throw new Error(`the test suite left ${leftovers.length} sandbench resources behind (now removed):\n${leftovers.map((l) => `  ${l.kind} ${l.id} (run ${l.runId})`).join('\n')}`);
  };
}
