/**
 * Paths in a spec's `backends:` section resolve against the spec file's directory (like arm builds)
 * and are written back absolute, so resolved-spec.json, `--resume` from another directory and the
 * composition root's module loader all name the same file. A module that does not exist fails here,
 * naming the field.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import type { BackendDeclaration } from './backend-declaration.ts';

export function resolveBackendPaths(specFile: string, declarations: Readonly<Record<string, BackendDeclaration>> | undefined): Record<string, BackendDeclaration> | undefined {
  if (!declarations) return undefined;
  const base = dirname(resolve(specFile));
  return Object.fromEntries(
    Object.entries(declarations).map(([name, declaration]) => {
      if (!('module' in declaration)) return [name, declaration];
      const path = isAbsolute(declaration.module) ? declaration.module : resolve(base, declaration.module);
      if (!existsSync(path)) throw new UserError(`${specFile}: backends.${name}.module: ${path}${path !== declaration.module ? ` (from "${declaration.module}", relative to the spec file)` : ''} does not exist — give the path of an ES module exporting a backend descriptor`);
      return [name, { module: path }];
    }),
  );
}
