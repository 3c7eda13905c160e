/**
 * The backends one spec may name: the build's own (SpecKinds.backends) plus those its `backends:`
 * section declares. A template's traits are known at load; a module's only once the composition root
 * has loaded it, so its arms' build fields are checked then (executors/plugin/).
 */
import type { BackendTraitCatalog, BackendTraits } from '../backends.ts';
import { buildFieldIssues } from './arm-build.ts';
import type { BackendDeclaration, DeclaredTraits } from './backend-declaration.ts';
import type { SpecIssue } from './kind-spec.ts';
import { templateDeclarationProblems } from './template-argv.ts';
import type { ArmSpec } from './schema.ts';

/** snake_case YAML traits → the traits generic code reads. */
export function traitsFromDeclaration(declared: DeclaredTraits): BackendTraits {
  return {
    launch: declared.launch,
    ...(declared.client_command ? { clientCommand: declared.client_command } : {}),
    networkIsolated: declared.network_isolated,
    privateTmp: declared.private_tmp,
    hostTraceable: declared.host_traceable,
    launchesArgvDirectly: declared.launches_argv_directly,
    runtimeHelpersOutsideCgroup: declared.runtime_helpers_outside_cgroup,
    isolatesFilesystem: declared.isolates_filesystem,
    buildFields: declared.build_fields,
    memoryAccounting: declared.memory_accounting,
    fleetNeeds: { ...declared.fleet_needs, ...(declared.fleet_needs.container_storage !== undefined ? { containerStorage: declared.fleet_needs.container_storage } : {}) },
  };
}

/** The catalog a spec's arms are checked against; a declared name that shadows a built-in one is an issue. */
export function specBackendCatalog(builtin: BackendTraitCatalog, declared: Readonly<Record<string, BackendDeclaration>> | undefined): { catalog: BackendTraitCatalog & { declared(name: string): boolean }; issues: SpecIssue[] } {
  const entries = Object.entries(declared ?? {});
  const issues: SpecIssue[] = [
    ...entries.filter(([name]) => builtin.names.includes(name)).map(([name]) => ({ path: ['backends', name], message: `"${name}" is a built-in backend: give the declared one another name` })),
    // A typo in a placeholder must fail at load, never at the first launch.
    ...entries.flatMap(([name, declaration]) => ('template' in declaration ? templateDeclarationProblems(name, declaration) : []).map((line) => {
      const [path, ...message] = line.split(': ');
      return { path: path!.split('.'), message: message.join(': ') };
    })),
  ];
  const declaredTraits = new Map(entries.map(([name, declaration]) => [name, 'template' in declaration ? traitsFromDeclaration(declaration.traits) : undefined]));
  return {
    catalog: {
      names: [...builtin.names, ...entries.map(([name]) => name).filter((name) => !builtin.names.includes(name))],
      traits: (name) => builtin.traits(name) ?? declaredTraits.get(name),
      declared: (name) => declaredTraits.has(name),
    },
    issues,
  };
}

/** Each arm names a backend of the catalog, and sets only build fields that backend honours. */
export function armBackendIssues(arms: readonly ArmSpec[], catalog: BackendTraitCatalog & { declared(name: string): boolean }): SpecIssue[] {
  return arms.flatMap((arm, index): SpecIssue[] => {
    if (!catalog.names.includes(arm.backend)) {
      return [{ path: ['arms', index, 'backend'], message: `"${arm.backend}" is not a backend of this build (expected one of ${catalog.names.join(', ')}, or declare it under backends:)` }];
    }
    const traits = catalog.traits(arm.backend);
    return buildFieldIssues(arm, traits?.buildFields).map((issue) => ({ path: ['arms', index, 'build', issue.field], message: issue.message }));
  });
}

/** A kind's field that names a backend (e.g. rollout.scoring_backend, or the keys of attempts_by_backend). */
export function namedBackendIssues(path: readonly (string | number)[], names: readonly string[], catalog: BackendTraitCatalog): SpecIssue[] {
  return names
    .filter((name) => !catalog.names.includes(name))
    .map((name) => ({ path, message: `"${name}" is not a backend of this build (expected one of ${catalog.names.join(', ')})` }));
}
