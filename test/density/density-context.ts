/** A real run context for density tests: the real task image, real executors, scratch under a temp state dir. */
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { Executor, RunContext } from '../../harness/contracts/executor.ts';
import { createExecutor } from '../../executors/registry.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { type Spec, type SpecInput } from '../../harness/spec/schema.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { stateDir } from '../../harness/state-dir.ts';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { armLabel } from '../../harness/journal/trial-record.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** Real budgets need root and a cgroup layout this harness knows (v1 hybrid here, or v2). */
export const canBudget = (() => {
  try {
    detectCgroupLayout();
    return process.getuid?.() === 0;
  } catch {
    return false;
  }
})();

export const TASK_IMAGE_REQUEST = { suite: 'bookworm', packages: ['python3', 'git', 'busybox', 'ca-certificates'], source_date_epoch: 1761955200 };

export interface DensityTestContext {
  ctx: ExperimentContext;
  dispose(): Promise<void>;
}

export async function makeDensityContext(specInput: Partial<SpecInput>): Promise<DensityTestContext> {
  const runId = `td${randomBytes(3).toString('hex')}`;
  const image = await ensureTaskImage(stateDir(), TASK_IMAGE_REQUEST);
  const scratch = tempDir(`sandbench-${runId}-`);
  const run: RunContext = { runId, image, stateDir: scratch, cleanup: new CleanupRegistry(runId), log: () => undefined, options: {} };
  const spec: Spec = parseSpec({
    name: 'density-test',
    experiment: 'density',
    arms: [{ backend: 'host' }],
    warmups: 0,
    trials: 1,
    seed: 7,
    timeout: '60s',
    ...specInput,
  });
  const executors = new Map<string, Executor>();
  for (const arm of spec.arms) {
    const executor = createExecutor(arm.backend, arm.variant ?? null);
    if (!executor) throw new Error(`no executor for ${arm.backend}`);
    await executor.prepare(run);
    executors.set(armLabel({ backend: arm.backend, variant: arm.variant ?? null }), executor);
  }
  const ctx: ExperimentContext = {
    run,
    spec,
    bundleDir: scratch,
    executorFor: (arm) => executors.get(armLabel(arm))!,
  };
  return {
    ctx,
    async dispose() {
      await run.cleanup.releaseAll();
      for (const executor of executors.values()) await executor.teardown();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
