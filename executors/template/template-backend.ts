/**
 * A spec-declared template backend as a descriptor (harness/contracts/backend-descriptor.ts): its
 * traits as the spec states them, its executor, and its leftover finder when the template says how
 * to list and remove its sandboxes.
 */
import { execa } from 'execa';
import type { Leftover, LeftoverSource } from '../../harness/clean/leftover.ts';
import { runIdIn, UNKNOWN_RUN } from '../../harness/clean/run-ids.ts';
import type { TemplateBackendDeclaration } from '../../harness/spec/backend-declaration.ts';
import { traitsFromDeclaration } from '../../harness/spec/spec-backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { expandTemplate } from '../../harness/spec/template-argv.ts';
import { createTemplateExecutor } from './template-executor.ts';

function leftoverFinder(name: string, declaration: TemplateBackendDeclaration): LeftoverSource | null {
  const leftovers = declaration.template.leftovers;
  if (!leftovers) return null;
  const env = { PATH: process.env.PATH ?? '', ...declaration.template.env };
  return {
    name: `${name} sandboxes`,
    async find(): Promise<Leftover[]> {
      const listed = await execa(leftovers.list[0]!, leftovers.list.slice(1), { reject: false, env, timeout: 60_000 });
      if (listed.exitCode !== 0) return [];
      return listed.stdout
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith('sandbench-'))
        .map((sandbox) => ({
          kind: 'container' as const,
          id: `${name}/${sandbox}`,
          runId: runIdIn(sandbox, []) ?? UNKNOWN_RUN,
          remove: async () => {
            const words = expandTemplate(`backends.${name}.template.leftovers.remove`, leftovers.remove, { name: sandbox });
            await execa(words[0]!, words.slice(1), { reject: false, env, timeout: 60_000 });
          },
        }));
    },
  };
}

export function templateBackend(name: string, declaration: TemplateBackendDeclaration): ExecutorDescriptor {
  const leftovers = leftoverFinder(name, declaration);
  return {
    name,
    summary: declaration.summary ?? `spec-declared template: ${declaration.template.launch.join(' ')}`,
    traits: traitsFromDeclaration(declaration.traits),
    create: (variant) => createTemplateExecutor(name, declaration, variant),
    ...(leftovers ? { leftovers: [leftovers] } : {}),
  };
}
