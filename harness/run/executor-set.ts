/**
 * Probes and prepares the executors a run needs. An arm whose backend is missing is skipped with
 * its reason recorded (or refused with --require-all); an arm whose prepare() fails stays in the
 * plan and every one of its trials is recorded as setup_failed, so the failure stays in denominators.
 */
import { armLabel, type ArmRef } from '../journal/trial-record.ts';
import type { BackendName, Executor, ProbeResult, RunContext } from '../contracts/executor.ts';
import type { ExecutorFactory } from '../contracts/wiring.ts';
import type { ArmBuild } from '../spec/arm-build.ts';
import type { TaskImage } from '../image/task-image.ts';

export interface ArmAvailability {
  arm: ArmRef;
  executor: Executor | null;
  probe: ProbeResult;
}

/** `builds`: arm label → the spec's build for it (harness/spec/arm-build.ts), handed to that arm's executor. */
export async function probeArms(arms: ArmRef[], createExecutor: ExecutorFactory, builds: ReadonlyMap<string, ArmBuild> = new Map()): Promise<ArmAvailability[]> {
  const results: ArmAvailability[] = [];
  for (const arm of arms) {
    const executor = createExecutor(arm.backend, arm.variant, builds.get(armLabel(arm)));
    if (!executor) {
      results.push({ arm, executor: null, probe: { backend: arm.backend as BackendName, available: false, version: null, details: {}, reason: `no executor adapter for "${arm.backend}" in this build`, fix: 'choose another backend' } });
      continue;
    }
    const probe = await executor.probe().catch(
      (error: unknown): ProbeResult => ({ backend: executor.backend, available: false, version: null, details: {}, reason: `probe crashed: ${error instanceof Error ? error.message : error}` }),
    );
    results.push({ arm, executor, probe });
  }
  return results;
}

/** Stands in for an executor whose prepare() failed: every trial fails at staging with the reason. */
function brokenExecutor(original: Executor, reason: string): Executor {
  const fail = async (): Promise<never> => {
    throw new Error(`executor prepare failed: ${reason}`);
  };
  return { ...original, prepare: async () => undefined, stageWorkspace: fail, launch: fail, collect: fail, finishTrial: async () => undefined, teardown: async () => undefined };
}

export class PreparedExecutors {
  private readonly byArm = new Map<string, Executor>();

  /** `images`: arm label → the arm's own task image (build.image); other arms get the run's image. */
  static async prepare(available: ArmAvailability[], run: RunContext, images: ReadonlyMap<string, TaskImage> = new Map()): Promise<PreparedExecutors> {
    const set = new PreparedExecutors();
    for (const { arm, executor } of available) {
      if (!executor) continue;
      try {
        run.log(`preparing ${armLabel(arm)}`);
        const image = images.get(armLabel(arm));
        await executor.prepare(image ? { ...run, image } : run);
        set.byArm.set(armLabel(arm), executor);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        run.log(`prepare failed for ${armLabel(arm)}: ${reason}`);
        set.byArm.set(armLabel(arm), brokenExecutor(executor, reason));
      }
    }
    return set;
  }

  get(arm: ArmRef): Executor {
    const executor = this.byArm.get(armLabel(arm));
    if (!executor) throw new Error(`no prepared executor for arm ${armLabel(arm)}`);
    return executor;
  }

  /** Each prepared backend's image facts (how it holds the task image), for environment.json. */
  imageFacts(): Record<string, Record<string, string> | null> {
    const facts: Record<string, Record<string, string> | null> = {};
    for (const executor of this.byArm.values()) facts[executor.backend] = executor.imageFacts?.() ?? null;
    return facts;
  }

  /** The same per arm label (two arms of one backend can hold two images). */
  armImageFacts(): Record<string, Record<string, string> | null> {
    return Object.fromEntries([...this.byArm.entries()].map(([label, executor]) => [label, executor.imageFacts?.() ?? null]));
  }

  async teardownAll(): Promise<void> {
    for (const executor of this.byArm.values()) await executor.teardown().catch(() => undefined);
  }
}
