/**
 * The catalog one spec runs with: the built-in backends plus those its `backends:` section declares
 * (templates become descriptors here, modules are loaded). The composition root calls this once the
 * spec is loaded; module paths are absolute by then (harness/spec/backend-paths.ts).
 */
import { catalogOf } from '../harness/contracts/backend-descriptor.ts';
import { UserError } from '../harness/errors.ts';
import { buildFieldIssues } from '../harness/spec/arm-build.ts';
import type { BackendDeclaration } from '../harness/spec/backend-declaration.ts';
import type { ArmSpec } from '../harness/spec/schema.ts';
import type { ExecutorDescriptor } from './backend-descriptor.ts';
import { loadBackendModule } from './plugin/backend-module.ts';
import { BUILTIN_BACKENDS } from './registry.ts';
import { templateBackend } from './template/template-backend.ts';

export type ExecutorCatalog = { readonly names: readonly string[]; get(name: string): ExecutorDescriptor | undefined };

export async function declaredBackends(declarations: Readonly<Record<string, BackendDeclaration>> | undefined): Promise<ExecutorDescriptor[]> {
  const descriptors: ExecutorDescriptor[] = [];
  for (const [name, declaration] of Object.entries(declarations ?? {})) {
    descriptors.push('template' in declaration ? templateBackend(name, declaration) : await loadBackendModule(name, declaration.module));
  }
  return descriptors;
}

/** Built-in + declared; a module's build fields are checked against its arms now that its traits are known. */
export async function catalogForSpec(spec: { backends?: Readonly<Record<string, BackendDeclaration>>; arms: readonly ArmSpec[] }): Promise<ExecutorCatalog> {
  const declared = await declaredBackends(spec.backends);
  const catalog = catalogOf([...BUILTIN_BACKENDS, ...declared]);
  const problems = spec.arms.flatMap((arm, index) => buildFieldIssues(arm, catalog.get(arm.backend)?.traits.buildFields).map((issue) => `arms.${index}.build.${issue.field}: ${issue.message}`));
  if (problems.length > 0) throw new UserError(problems.join('\n'));
  return catalog;
}
