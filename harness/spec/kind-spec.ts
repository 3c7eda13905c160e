/**
 * What an experiment kind says about its part of the spec. The generic spec (schema.ts) knows the
 * fields every kind shares; a kind's own section (`density:`, `agent:`, ...) and its cross-field
 * rules live in the kind's folder and reach the loader through a `SpecKinds` catalog that the
 * composition root builds from the kind registry. So a new kind edits only its own folder and the
 * registry, and a section written for another kind is an error that names that kind.
 */
import type { z } from 'zod';
import type { Spec } from './schema.ts';
import type { BackendTraitCatalog } from '../backends.ts';
import type { PlanExpansion } from '../plan/plan-bounds.ts';
import type { SpecPathResolver } from './spec-paths.ts';

/** One problem with a spec, as `field.path: message` (the loader prefixes the file name). */
export interface SpecIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Command-line knobs a kind may honour (`--concurrency`, `--batches`); generic ones live in SpecOverrides. */
export interface KindOverrides {
  concurrency?: number[];
  batches?: number;
}

export interface KindSpecSection<T> {
  /** The top-level YAML key of the section. */
  readonly key: string;
  /** Input → parsed section (defaults applied, durations in ms, sizes in MiB). Must accept `{}`. */
  readonly schema: z.ZodType<T>;
  /** Parsed → schema input (e.g. a duration in ms back to "120000ms") so overrides can re-validate. */
  encode?(parsed: T): unknown;
  /** Apply the kind's command-line overrides to the section's input form; omit when the kind has none. */
  applyOverrides?(input: Record<string, unknown>, overrides: KindOverrides): Record<string, unknown>;
  /**
   * The sizes the kind's plan and trials expand this section to (batches × cells, attempts,
   * concurrency, ...), as products of counts, so the loader refuses an absurd spec before any plan
   * is built (harness/plan/plan-bounds.ts). Omit when the generic (trials, warmups) × arms is all.
   */
  expansion?(section: T, spec: Spec): PlanExpansion[];
  /**
   * The section with its file paths made absolute through `resolvePath` (harness/spec/spec-paths.ts:
   * against the spec file, shipped files as the fallback). Omit when the section names no files.
   */
  paths?(section: T, resolvePath: SpecPathResolver): T;
}

export interface KindSpec<T = unknown> {
  readonly section?: KindSpecSection<T>;
  /** `sandbench init <kind>`: a commented starter spec in the kind's folder, as a path from the project root. */
  readonly starter?: string;
  /**
   * The field that repeats this kind's cells when the generic `trials`/`warmups` do not (a rollout
   * cell repeats with rollout.blocks, a density cell with density.batches). A spec or a command line
   * that gives either generic field a value other than the neutral one (trials 1, warmups 0) is
   * refused naming this field: an ignored repetition count would read as n it never had.
   */
  readonly repeatsWith?: string;
  /** Cross-field rules against the whole parsed spec (e.g. the command kind needs task.argv). */
  refine?(spec: Spec, backends: BackendTraitCatalog): SpecIssue[];
}

/** Kind name → what it says about the spec; built by the composition root from the kind registry. */
export interface SpecKinds {
  /** Every kind this build has (for "expected one of ..."). */
  readonly names: readonly string[];
  /** The kind's spec description; undefined when this build lacks the kind. */
  spec(kind: string): KindSpec | undefined;
  /** The built-in backends' traits (a spec's `backends:` section adds its own): arm names are checked against them. */
  readonly backends: BackendTraitCatalog;
}

/** Define a kind's section with its parsed type inferred from the schema. */
export function defineSection<S extends z.ZodType<unknown>>(section: KindSpecSection<z.output<S>> & { schema: S }): KindSpecSection<z.output<S>> {
  return section;
}

/**
 * The kind's parsed section of a loaded spec. The loader stores every kind's section parsed (with
 * defaults) under its key, so this never re-parses (a parsed duration in ms would read as seconds).
 */
export function readSection<T>(spec: Spec, section: KindSpecSection<T>): T {
  const value = (spec as Record<string, unknown>)[section.key];
  return value === undefined ? section.schema.parse({}) : (value as T);
}
