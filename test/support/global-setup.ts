/**
 * Once per test run: build the task image before any file runs (parallel files never race a first
 * build), and afterwards prove the acceptance line "after the whole suite nothing sandbench
 * created remains": no container, VM, mount, dockerd, cgroup or scratch dir of a finished run, and
 * no sandbench/sb temp dir in the suite's own TMPDIR (temp-guard.ts).
 */
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { stopHarnessDockerd } from '../../executors/dockerd-manager.ts';
import { findLeftovers } from '../../harness/clean/find-leftovers.ts';
import { BUILTIN_LEFTOVER_SOURCES as sources } from '../../executors/registry.ts';
import { leftoverTempMessage, openSuiteTempDir } from './temp-guard.ts';

export default async function setup(): Promise<() => Promise<void>> {
  // Before anything runs: workers (forked after setup) and every child inherit this TMPDIR.
  const suiteTmp = openSuiteTempDir();
  let before: Set<string>;
  try {
    await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}), (message) => process.stderr.write(`global-setup: ${message}\n`));
    before = new Set((await findLeftovers({ stateDir: stateDir(), sources })).map((leftover) => `${leftover.kind} ${leftover.id}`));
  } catch (error) {
    suiteTmp.close();
    throw error;
  }
  return async () => {
    // A daemon whose every holder crashed would otherwise outlive the suite.
    await stopHarnessDockerd(stateDir());
    const leftovers = (await findLeftovers({ stateDir: stateDir(), sources })).filter((leftover) => !before.has(`${leftover.kind} ${leftover.id}`));
    for (const leftover of leftovers) await leftover.remove().catch(() => undefined);
    const problems: string[] = [];
    if (leftovers.length > 0) problems.push(`the test suite left ${leftovers.length} sandbench resources behind (now removed):\n${leftovers.map((l) => `  ${l.kind} ${l.id} (run ${l.runId})`).join('\n')}`);
    // After the resources above are gone: a leftover process or mount may still have held a temp dir.
    try {
      const temps = suiteTmp.close();
      if (temps.length > 0) problems.push(leftoverTempMessage(suiteTmp.dir, temps));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
    if (problems.length === 0) return;
    // vitest 4 only logs a teardown's throw ("error during close") and still exits 0: fail the run here.
    process.exitCode = 1;
    throw new Error(problems.join('\n'));
  };
}
