/**
 * The command kind's spec section (`command:`): how each timed run of task.argv is started.
 * `prime_runs` runs the command itself, untimed, right before every timed run (hyperfine's
 * `--warmup`, per trial): the trial then starts with the command's binary and libraries as warm as
 * in hyperfine's back-to-back loop. Because the command runs prime_runs + 1 times in the same
 * workspace, it is opt-in, host-only (elsewhere the launched process is the sandbox's own launch, not
 * task.argv) and recorded in every trial as `timing.prime_runs`.
 */
import { z } from 'zod';
import { defineSection, readSection, type SpecIssue } from '../../harness/spec/kind-spec.ts';
import type { BackendTraitCatalog } from '../../harness/backends.ts';
import type { Spec } from '../../harness/spec/schema.ts';

export const CommandSpecSchema = z
  .object({
    prime_runs: z.number().int().min(0).max(16).default(0),
  })
  .strict();

export type CommandSpec = z.output<typeof CommandSpecSchema>;

export const commandSection = defineSection({ key: 'command', schema: CommandSpecSchema });

export function commandOptions(spec: Spec): CommandSpec {
  return readSection(spec, commandSection);
}

/** Prime runs need a backend that launches task.argv itself. */
export function primeRunIssues(spec: Spec, backends: BackendTraitCatalog): SpecIssue[] {
  if (commandOptions(spec).prime_runs === 0) return [];
  const others = [...new Set(spec.arms.map((arm) => arm.backend).filter((backend) => !backends.traits(backend)?.launchesArgvDirectly))];
  const direct = backends.names.filter((name) => backends.traits(name)?.launchesArgvDirectly);
  return others.length === 0
    ? []
    : [{ path: ['command', 'prime_runs'], message: `only backends that launch task.argv directly (${direct.join(', ')}) can prime it; ${others.join(', ')} would time the sandbox launch, so prime runs cannot apply there (set prime_runs: 0 or keep only ${direct.join('/')} arms)` }];
}
