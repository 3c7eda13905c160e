import type { Command } from 'commander';
import { writeFileSync } from 'node:fs';
import { formatPlan, serializePlan } from '../../harness/plan/plan.ts';
import { loadSpec } from '../../harness/spec/load-spec.ts';
import { applyOverrides, type SpecOverrides } from '../../harness/spec/resolve-spec.ts';
import { EXPERIMENTS, SPEC_KINDS } from '../../experiments/registry.ts';
import { withSpecOverrideOptions } from '../parse-options.ts';

export function registerPlan(program: Command): void {
  withSpecOverrideOptions(
    program
      .command('plan')
      .description('Print the seeded schedule a spec would run, without running anything (same seed → identical output)')
      .argument('<spec>', 'experiment spec (YAML)'),
  )
    .option('--json <file>', 'also write plan.json to this file')
    .action((specPath: string, flags: SpecOverrides & { json?: string }) => {
      const { spec } = loadSpec(specPath, SPEC_KINDS);
      const { json, ...overrides } = flags;
      const resolved = applyOverrides(specPath, spec, overrides, SPEC_KINDS);
      const experiment = EXPERIMENTS[resolved.experiment]!;
      const plan = experiment.plan(resolved);
      if (json) writeFileSync(json, serializePlan(plan));
      process.stdout.write(`${formatPlan(plan)}\n`);
    });
}
