/**
 * Expands a declared backend's argv templates (harness/spec/backend-declaration.ts). A word is either
 * one whole-word list placeholder ({argv}, {mounts}, {service}: several words) or text with scalar
 * placeholders ({rootfs}, {cpus}, ...). An unknown placeholder, or a list placeholder inside a word,
 * is an error naming the spec field, so a typo never reaches a launch.
 */
import { TEMPLATE_PLACEHOLDERS, type TemplateBackendDeclaration, type TemplatePlaceholder } from './backend-declaration.ts';

const LIST_PLACEHOLDERS = new Set<TemplatePlaceholder>(['argv', 'mounts', 'service']);
const PLACEHOLDER = /\{([a-z_]+)\}/g;

export type TemplateValues = Partial<Record<TemplatePlaceholder, string | readonly string[]>>;

export class TemplateError extends Error {}

/** Every problem with one argv template, as `field: message` lines; `allowed` limits the placeholders of a sub-template. */
export function templateProblems(field: string, argv: readonly string[], allowed: readonly TemplatePlaceholder[] = Object.keys(TEMPLATE_PLACEHOLDERS) as TemplatePlaceholder[]): string[] {
  const problems: string[] = [];
  argv.forEach((word, index) => {
    for (const match of word.matchAll(PLACEHOLDER)) {
      const name = match[1] as TemplatePlaceholder;
      if (!Object.hasOwn(TEMPLATE_PLACEHOLDERS, name) || !allowed.includes(name)) {
        problems.push(`${field}[${index}]: unknown placeholder {${match[1]}} in "${word}" (expected one of ${allowed.map((p) => `{${p}}`).join(', ')})`);
      } else if (LIST_PLACEHOLDERS.has(name) && word !== `{${name}}`) {
        problems.push(`${field}[${index}]: {${name}} stands for several words, so it must be a whole word of its own, not part of "${word}"`);
      }
    }
  });
  return problems;
}

/** The argv with every placeholder replaced; a placeholder without a value here is an error naming it. */
export function expandTemplate(field: string, argv: readonly string[], values: TemplateValues): string[] {
  return argv.flatMap((word) => {
    const whole = /^\{([a-z_]+)\}$/.exec(word)?.[1] as TemplatePlaceholder | undefined;
    if (whole && LIST_PLACEHOLDERS.has(whole)) {
      const value = values[whole];
      if (value === undefined) throw new TemplateError(`${field}: {${whole}} has no value here`);
      return typeof value === 'string' ? [value] : [...value];
    }
    return [
      word.replace(PLACEHOLDER, (_, name: string) => {
        const value = values[name as TemplatePlaceholder];
        if (value === undefined || typeof value !== 'string') throw new TemplateError(`${field}: {${name}} has no value here (${TEMPLATE_PLACEHOLDERS[name as TemplatePlaceholder] ?? 'unknown placeholder'})`);
        return value;
      }),
    ];
  });
}

/** Every placeholder problem of a declaration, as `field: message` lines (empty = usable). */
export function templateDeclarationProblems(name: string, declaration: TemplateBackendDeclaration): string[] {
  const t = declaration.template;
  const field = (key: string) => `backends.${name}.template.${key}`;
  const scalar = ['rootfs', 'workspace', 'workdir', 'baseline', 'upper', 'work', 'cpus', 'memory_mib', 'name', 'short_name', 'run_id', 'trial_id', 'trial_dir'] as const;
  return [
    ...templateProblems(field('probe'), t.probe, []),
    // {source}, {target} and {socket} exist only inside `mount` and `service`.
    ...templateProblems(field('launch'), t.launch, [...scalar, 'argv', 'mounts', 'service']),
    ...(t.launch.includes('{argv}') ? [] : [`${field('launch')}: never runs {argv} (the task command): add it as a word of its own`]),
    ...(t.workdir === undefined ? [] : templateProblems(field('workdir'), [t.workdir], ['workspace'])),
    ...(t.mount ? templateProblems(field('mount'), t.mount, [...scalar, 'source', 'target']) : []),
    ...(t.service ? templateProblems(field('service'), t.service, [...scalar, 'socket', 'target']) : []),
    ...(t.prepare ? templateProblems(field('prepare'), t.prepare, ['rootfs', 'run_id']) : []),
    ...(t.teardown ? templateProblems(field('teardown'), t.teardown, ['rootfs', 'run_id']) : []),
    ...(t.finish ? templateProblems(field('finish'), t.finish, scalar) : []),
    ...(t.leftovers ? [...templateProblems(field('leftovers.list'), t.leftovers.list, []), ...templateProblems(field('leftovers.remove'), t.leftovers.remove, ['name'])] : []),
  ];
}
