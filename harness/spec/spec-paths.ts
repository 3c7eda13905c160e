/**
 * Relative paths in a spec's own fields (task.workspace, a kind's task file, stream or script)
 * resolve against the spec file's directory, like `build:` and `backends:` paths, so a spec and
 * the files beside it work from any working directory. One exception keeps shipped specs and the
 * kinds' defaults working from an installed package: a path that names nothing next to the spec
 * but names a file shipped with sandbench (`data/model-scripts/marker.yaml`) is that file. The
 * result is absolute and recorded so in resolved-spec.json, so a bundle says which file ran.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { PROJECT_ROOT } from '../state-dir.ts';

/** Makes one spec path absolute; see the module comment for the rule. */
export interface SpecPathResolver {
  (path: string): string;
  /** The spec file the paths belong to, so a kind's "does not exist" error can name it. */
  readonly specFile: string;
  /** Where a path is looked for, in order (beside the spec, then the package; an absolute path alone). */
  places(path: string): string[];
}

export function specPathResolver(specFile: string, packageRoot: string = PROJECT_ROOT): SpecPathResolver {
  const base = dirname(resolve(specFile));
  const places = (path: string) => (isAbsolute(path) ? [path] : [resolve(base, path), resolve(packageRoot, path)]);
  // Not found anywhere: the first place (spec-relative), so the kind's "does not exist" error names where it looked.
  const resolvePath = (path: string) => places(path).find((place) => existsSync(place)) ?? places(path)[0]!;
  return Object.assign(resolvePath, { specFile, places });
}
