/**
 * Where an isolation trial's fixtures (baseline workspace, host canaries, host socket, trial scratch)
 * sit on the host: a recorded control, because a sandbox's policy can depend on it — pVisor 0.3.1's
 * rootless executor passes writes below the home directory through by its home policy, so fixtures
 * under ~/.cache made every negative probe "reach the host" (issue 20). `outside-home` is the
 * protocol's placement (the published study's); `inside-home` measures the difference.
 */
import { join } from 'node:path';
import type { ArmRef, TrialRecord } from '../../harness/journal/trial-record.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { readSection } from '../../harness/spec/kind-spec.ts';
import { FIXTURE_PLACEMENTS, isolationSpecSection } from './isolation-spec.ts';
import { DEFAULT_FIXTURE_ROOT, homeFixtureRoot, pathClass, runScratchDir, type PathClass } from '../../harness/state-dir.ts';

export const PLACEMENTS = FIXTURE_PLACEMENTS;
export type Placement = (typeof FIXTURE_PLACEMENTS)[number];
/** The protocol's placement: its evidence rows keep the plain arm label, so they join the published rows. */
export const DEFAULT_PLACEMENT: Placement = 'outside-home';

export interface PlacementFacts {
  placement: Placement;
  /** The trial's scratch root: baseline/, isolation-host/ and the trial dir live below it. */
  root: string;
  path_class: PathClass;
}

/**
 * The scratch root of a placement for run `runId`: the run's own scratch dir when it already has the
 * placement's class, else a `sandbench-<run>` dir under the other root (so `clean` finds it by name).
 */
export function placementRoot(placement: Placement, stateDirectory: string, runId: string): PlacementFacts {
  const runScratch = runScratchDir(stateDirectory, runId);
  const runInside = pathClass(runScratch) === 'inside-home';
  const root =
    placement === 'inside-home'
      ? runInside ? runScratch : join(homeFixtureRoot(), `sandbench-${runId}`)
      : runInside ? join(DEFAULT_FIXTURE_ROOT, `sandbench-${runId}`) : runScratch;
  const facts: PlacementFacts = { placement, root, path_class: pathClass(root) };
  const wanted = placement === 'inside-home' ? 'inside-home' : 'not inside-home';
  if ((facts.path_class === 'inside-home') !== (placement === 'inside-home')) {
    throw new Error(`isolation: placement ${placement} resolved to ${root} (${facts.path_class}), expected ${wanted}; set SANDBENCH_FIXTURES to a directory outside $HOME`);
  }
  return facts;
}

export function placementOf(record: Pick<TrialRecord, 'facts'>): Placement {
  const facts = record.facts.fixture_placement as Partial<PlacementFacts> | undefined;
  return (PLACEMENTS as readonly string[]).includes(facts?.placement ?? '') ? (facts!.placement as Placement) : DEFAULT_PLACEMENT;
}

/** Unit of analysis: the arm, qualified by a non-default placement (`pvisor:inside-home`), like density's cells. */
export function isolationGroupOf(record: Pick<TrialRecord, 'arm' | 'facts'>): ArmRef {
  const placement = placementOf(record);
  if (placement === DEFAULT_PLACEMENT) return record.arm;
  return { backend: record.arm.backend, variant: record.arm.variant ? `${record.arm.variant}-${placement}` : placement };
}

export function placementsOf(spec: Spec): Placement[] {
  return readSection(spec, isolationSpecSection).placements;
}
