/**
 * The built-in backends: one descriptor each (executors/backends/), one line here. The composition
 * root (cli/wiring.ts) adds the backends a spec declares and hands the catalog down.
 */
import type { LeftoverSource } from '../harness/clean/leftover.ts';
import { catalogOf } from '../harness/contracts/backend-descriptor.ts';
import type { Executor } from '../harness/contracts/executor.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import type { ExecutorDescriptor } from './backend-descriptor.ts';
import { dockerBackend } from './backends/docker.ts';
import { gvisorBackend } from './backends/gvisor.ts';
import { hostBackend } from './backends/host.ts';
import { podmanBackend } from './backends/podman.ts';
import { pvisorBackend } from './backends/pvisor.ts';
import { qemuMicrovmBackend, qemuQ35Backend } from './backends/qemu.ts';
import { stagedBackend } from './backends/staged.ts';
import { timingDetails } from './launch/timing-session.ts';

export const BUILTIN_BACKENDS: readonly ExecutorDescriptor[] = [
  hostBackend,
  stagedBackend,
  podmanBackend,
  dockerBackend,
  qemuMicrovmBackend,
  qemuQ35Backend,
  pvisorBackend,
  gvisorBackend,
];

export const BUILTIN_CATALOG = catalogOf(BUILTIN_BACKENDS);

/** Every built-in backend's leftover finders, for `clean` and `--resume`. */
export const BUILTIN_LEFTOVER_SOURCES: readonly LeftoverSource[] = BUILTIN_BACKENDS.flatMap((descriptor) => descriptor.leftovers ?? []);

/** `build`: the arm's binaries/image (harness/spec/arm-build.ts); absent = the backend's defaults. */
export type ExecutorFactory = (variant: string | null, build?: ArmBuild) => Executor;

/** A fresh executor of a descriptor, carrying its traits and stating its timing path when probed. */
export function executorOf(descriptor: ExecutorDescriptor, variant: string | null, build?: ArmBuild): Executor {
  return withTimingDetails({ ...descriptor.create(variant, build), traits: descriptor.traits });
}

/** A built-in backend's executor; null when this build has no such backend. */
export function createExecutor(backend: string, variant: string | null, build?: ArmBuild): Executor | null {
  const descriptor = BUILTIN_CATALOG.get(backend);
  return descriptor ? executorOf(descriptor, variant, build) : null;
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
      // A backend that states its own timing path (a plugin module spawning with Node) keeps its word.
      return result.available ? { ...result, details: { ...(await timingDetails()), ...result.details } } : result;
    },
  };
}
