/** Arm label → the arm's build (harness/spec/arm-build.ts), for the executors of a run. */
import { armLabel } from './arm-label.ts';
import type { ArmBuild } from './arm-build.ts';

export function armBuilds(spec: { arms: readonly { backend: string; variant?: string; build?: ArmBuild }[] }): Map<string, ArmBuild> {
  return new Map(spec.arms.flatMap((arm) => (arm.build ? [[armLabel(arm), arm.build] as [string, ArmBuild]] : [])));
}
