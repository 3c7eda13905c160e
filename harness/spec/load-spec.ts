import { readFileSync } from 'node:fs';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import type { ZodError } from 'zod';
import { UserError } from '../errors.ts';
import { checkPlanBounds, genericExpansions, type PlanExpansion } from '../plan/plan-bounds.ts';
import type { SpecIssue, SpecKinds } from './kind-spec.ts';
import { BaseSpecSchema, type Spec } from './schema.ts';
import { armBackendIssues, specBackendCatalog } from './spec-backends.ts';
import { defaultedFields } from './spec-defaults.ts';
import { genericRepetitionIssues, withNeutralRepetitions } from './generic-repetitions.ts';

export interface LoadedSpec {
  path: string;
  /** The file's bytes as given (copied verbatim into the bundle as spec.yaml). */
  source: string;
  spec: Spec;
  /** Generic fields the file leaves out and the defaults filled (harness/spec/spec-defaults.ts). */
  defaulted: string[];
}

/** The value at `path` in a parsed YAML document, undefined when any step is absent. */
function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let value = document;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/**
 * One line per problem: `file: field.path: what is expected`. A field the document leaves out is
 * "missing required field" whatever its type (a union such as a duration would otherwise say only
 * "Invalid input").
 */
export function formatSpecIssues(file: string, error: Pick<ZodError, 'issues'>, document?: unknown): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? issue.path.join('.') : '(top level)';
      const absent = issue.path.length > 0 && (document !== undefined ? valueAt(document, issue.path) === undefined : issue.message.endsWith('received undefined'));
      const message =
        issue.code === 'unrecognized_keys'
          ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} (remove or fix the spelling)`
          : absent && (issue.code === 'invalid_type' || issue.code === 'invalid_union')
            ? `missing required field${issue.code === 'invalid_type' ? ` (${issue.message.replace('Invalid input: ', '')})` : ''}`
            : issue.message;
      return `${file}: ${field}: ${message}`;
    })
    .join('\n');
}

function parseYamlDocument(file: string, source: string): unknown {
  try {
    return parseYaml(source, { prettyErrors: true });
  } catch (error) {
    if (error instanceof YAMLParseError) {
      const where = error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}` : 'unknown position';
      throw new UserError(`${file}: YAML syntax error at ${where}: ${error.message.split('\n')[0]}`);
    }
    throw error;
  }
}

export function parseSpecText(file: string, source: string, kinds: SpecKinds): Spec {
  return parseGivenSpec(file, parseYamlDocument(file, source), kinds);
}

/**
 * A spec as its author wrote it: parsed (a kind that repeats with its own field gets the neutral
 * trials/warmups it runs, not the generic defaults), then checked for fields the author gave that
 * its kind would ignore.
 */
export function parseGivenSpec(file: string, document: unknown, kinds: SpecKinds): Spec {
  const given = document as Record<string, unknown>;
  const named = typeof given?.experiment === 'string' ? kinds.spec(given.experiment) : undefined;
  const spec = parseSpecDocument(file, withNeutralRepetitions(named, document), kinds);
  const ignored = genericRepetitionIssues(kinds.spec(spec.experiment), spec.experiment, { trials: given.trials, warmups: given.warmups });
  if (ignored.length > 0) throw new UserError(formatIssues(file, ignored));
  return spec;
}

function formatIssues(file: string, issues: readonly SpecIssue[]): string {
  return issues.map((issue) => `${file}: ${issue.path.length > 0 ? issue.path.join('.') : '(top level)'}: ${issue.message}`).join('\n');
}

/**
 * Validate a spec document: the generic fields, then the kind (known to this build?), then every
 * other top-level key — the kind's own section (parsed with defaults and stored under its key, so
 * resolved-spec.json says what ran), another kind's section (named), or a typo — then the sizes the
 * plan would expand to (plan-bounds.ts), then the kind's cross-field rules.
 */
export function parseSpecDocument(file: string, document: unknown, kinds: SpecKinds): Spec {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new UserError(`${file}: (top level): expected a YAML mapping with name, experiment, arms, ...`);
  }
  const parsed = BaseSpecSchema.safeParse(document);
  if (!parsed.success) throw new UserError(formatSpecIssues(file, parsed.error, document));
  const spec: Spec = parsed.data;
  const kind = kinds.spec(spec.experiment);
  if (!kind) throw new UserError(`${file}: experiment: "${spec.experiment}" is not a kind of this build (expected one of ${kinds.names.join(', ')})`);
  const sectionKey = kind.section?.key;
  const issues: SpecIssue[] = [];
  for (const key of Object.keys(spec).filter((key) => !(key in BaseSpecSchema.shape) && key !== sectionKey)) {
    const owner = kinds.names.find((name) => kinds.spec(name)?.section?.key === key);
    issues.push(
      owner
        ? { path: [key], message: `this section belongs to the ${owner} kind, but experiment is ${spec.experiment} (remove it, or set experiment: ${owner})` }
        : { path: [], message: `unknown key "${key}" (remove or fix the spelling)` },
    );
  }
  if (issues.length > 0) throw new UserError(formatIssues(file, issues));
  if (kind.section) {
    const section = kind.section.schema.safeParse((document as Record<string, unknown>)[kind.section.key] ?? {});
    if (!section.success) {
      const prefixed = section.error.issues.map((issue) => ({ ...issue, path: [kind.section!.key, ...issue.path] }));
      throw new UserError(formatSpecIssues(file, { issues: prefixed }, document));
    }
    (spec as Record<string, unknown>)[kind.section.key] = section.data;
  }
  // Before the kind's rules and long before any plan: an absurd size must fail in milliseconds.
  const expansions: PlanExpansion[] = [...genericExpansions(spec), ...(kind.section?.expansion?.((spec as Record<string, unknown>)[kind.section.key], spec) ?? [])];
  checkPlanBounds(file, expansions, spec.limits);
  const backends = specBackendCatalog(kinds.backends, spec.backends);
  const backendIssues = [...backends.issues, ...armBackendIssues(spec.arms, backends.catalog)];
  if (backendIssues.length > 0) throw new UserError(formatIssues(file, backendIssues));
  const rules = kind.refine?.(spec, backends.catalog) ?? [];
  if (rules.length > 0) throw new UserError(formatIssues(file, rules));
  return spec;
}

export function loadSpec(file: string, kinds: SpecKinds): LoadedSpec {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UserError(`${file}: cannot read spec (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the path`);
  }
  const document = parseYamlDocument(file, source);
  return { path: file, source, spec: parseGivenSpec(file, document, kinds), defaulted: defaultedFields(document) };
}
