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
export type SpecPathResolver = (path: string) => string;

export function specPathResolver(specFile: string, packageRoot: string = PROJECT_ROOT): SpecPathResolver {
  const base = dirname(resolve(specFile));
  return (path) => {
    if (isAbsolute(path)) return path;
    const besideSpec = resolve(base, path);
    if (existsSync(besideSpec)) return besideSpec;
    const shipped = resolve(packageRoot, path);
    // Not found either way: the spec-relative path, so the kind's "does not exist" error names where it looked.
    return existsSync(shipped) ? shipped : besideSpec;
  };
}
