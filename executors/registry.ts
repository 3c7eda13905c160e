/** Backend name → executor factory. One line per adapter. */
import type { BackendName, Executor } from '../harness/contracts/executor.ts';
import { createHostExecutor } from './host.ts';
import { createStagedExecutor } from './staged.ts';
import { createPodmanExecutor } from './podman.ts';
import { createDockerExecutor } from './docker.ts';
import { createQemuMicrovmExecutor } from './qemu-microvm.ts';
import { createQemuQ35Executor } from './qemu-q35.ts';
import { createPvisorExecutor } from './pvisor.ts';
import { timingDetails } from './launch/timing-session.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';

/** `build`: the arm's binaries/image (harness/spec/arm-build.ts); absent = the backend's defaults. */
export type ExecutorFactory = (variant: string | null, build?: ArmBuild) => Executor;

export const EXECUTOR_FACTORIES: Partial<Record<BackendName, ExecutorFactory>> = {
  host: createHostExecutor,
  staged: createStagedExecutor,
  podman: createPodmanExecutor,
  docker: (variant, build) => createDockerExecutor(variant, { build }),
  'qemu-microvm': createQemuMicrovmExecutor,
  'qemu-q35': createQemuQ35Executor,
  pvisor: createPvisorExecutor,
};

export function createExecutor(backend: BackendName, variant: string | null, build?: ArmBuild): Executor | null {
  const factory = EXECUTOR_FACTORIES[backend];
  return factory ? withTimingDetails(factory(variant, build)) : null;
}

/**
 * Every backend here launches through spawnTrial, so its probe also states the run's timing path and
 * the launcher's calibrated floor: probing is the first thing a run (and `doctor`) does, which makes
 * it the run-start calibration, and the details land in environment.json and doctor's lines.
 */
function withTimingDetails(executor: Executor): Executor {
  const probe = executor.probe.bind(executor);
  return {
    ...executor,
    async probe() {
      const result = await probe();
      return result.available ? { ...result, details: { ...result.details, ...(await timingDetails()) } } : result;
    },
  };
}
