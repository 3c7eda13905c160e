/**
 * A backend describes itself, as experiment kinds do: its name, its traits (harness/backends.ts),
 * how to create its executor, and optionally how `clean` finds what a dead run of it left behind.
 * Built-in backends have one descriptor each in executors/backends/; a spec may declare more
 * (`backends:`: a command template, or a module exporting a descriptor: docs/backends.md). This is
 * the contract a plugin module implements; its types are exported by the package (index.ts).
 */
import type { BackendTraits } from '../backends.ts';
import type { LeftoverSource } from '../clean/leftover.ts';
import type { ArmBuild } from '../spec/arm-build.ts';
import type { ExecutorImplementation } from './executor.ts';

export interface BackendDescriptor {
  /** The name arms use (`arms[].backend`): [a-z][a-z0-9-]*. */
  readonly name: string;
  /** One line for `doctor`, `conformance` and docs. */
  readonly summary: string;
  readonly traits: BackendTraits;
  /** A fresh executor for one arm (variant and build as the spec gives them). Never starts anything. */
  create(variant: string | null, build?: ArmBuild): ExecutorImplementation;
  /** Finders of what a dead run of this backend left behind (containers, daemons), for `clean` and `--resume`. */
  readonly leftovers?: readonly LeftoverSource[];
}

/** The catalog the composition root builds: built-in descriptors plus any the spec declares. */
export interface BackendCatalog {
  readonly names: readonly string[];
  get(name: string): BackendDescriptor | undefined;
}

export const BACKEND_NAME_PATTERN = /^[a-z][a-z0-9-]*$/;

/** A catalog over a list of descriptors; a later descriptor of the same name is an error, never a silent override. */
export function catalogOf<D extends BackendDescriptor>(descriptors: readonly D[]): { readonly names: readonly string[]; get(name: string): D | undefined } {
  const byName = new Map<string, D>();
  for (const descriptor of descriptors) {
    if (byName.has(descriptor.name)) throw new Error(`two backends are named "${descriptor.name}"`);
    byName.set(descriptor.name, descriptor);
  }
  return { names: [...byName.keys()], get: (name) => byName.get(name) };
}
