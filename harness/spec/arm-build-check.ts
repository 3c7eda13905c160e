/**
 * Run-start check of `arms[i].build` (harness/spec/arm-build.ts): every binary must be an executable
 * file and every image tar a readable file, else a UserError naming the spec file, the arm index, the
 * field and the fix. Relative paths are resolved against the spec file's directory and written back
 * absolute, so resolved-spec.json (and a later --resume from another directory) names the same file.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { BUILD_BINARY_FIELDS, type ArmBuild } from './arm-build.ts';

interface ArmWithBuild {
  backend: string;
  variant?: string;
  build?: ArmBuild;
}

function problemWith(path: string, executable: boolean): string | null {
  if (!existsSync(path)) return 'does not exist';
  if (!statSync(path).isFile()) return 'is not a regular file';
  try {
    accessSync(path, executable ? constants.X_OK : constants.R_OK);
  } catch {
    return executable ? 'is not executable (chmod +x it)' : 'is not readable';
  }
  return null;
}

const FIX: Record<string, string> = {
  runtime: 'give the OCI runtime by name (looked up on PATH, e.g. crun) or by path',
  pvisor: 'give the path of the pvisor CLI to run, e.g. the output of `command -v pvisor`',
  wrapper: 'give the path of an executable that execs its arguments (e.g. a script ending in `exec "$@"`)',
  'image.tar': 'give the path of a rootfs tar (e.g. `sandbench images build` output, or `podman export`)',
};

/** The first executable named `name` on PATH, or null. */
function onSearchPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (problemWith(candidate, true) === null) return candidate;
  }
  return null;
}

/** The spec's arms with every build path absolute; throws a UserError on the first missing or unusable file. */
export function resolveArmBuilds<T extends ArmWithBuild>(specFile: string, arms: readonly T[]): T[] {
  const base = dirname(resolve(specFile));
  return arms.map((arm, index) => {
    if (!arm.build) return arm;
    const build: ArmBuild = { ...arm.build };
    const check = (field: string, raw: string, executable: boolean): string => {
      // A bare runtime name (no slash) is looked up on PATH, like a shell would, and
      // recorded resolved: `runtime: crun` names the same file in resolved-spec.json on resume.
      const byName = field === 'runtime' && !raw.includes('/');
      const onPath = byName ? onSearchPath(raw) : null;
      const path = onPath ?? (isAbsolute(raw) ? raw : resolve(base, raw));
      const problem = problemWith(path, executable);
      if (problem) {
        const from = byName && onPath === null ? ` (from "${raw}": not found on PATH, nor relative to the spec file)` : path !== raw ? ` (from "${raw}", relative to the spec file)` : '';
        throw new UserError(`${specFile}: arms[${index}].build.${field}: ${path}${from} ${problem} — ${FIX[field]}, or remove build.${field} from arm ${index} (${arm.backend}${arm.variant ? `:${arm.variant}` : ''})`);
      }
      return path;
    };
    for (const field of BUILD_BINARY_FIELDS) {
      const raw = build[field];
      if (raw !== undefined) build[field] = check(field, raw, true);
    }
    if (build.image && 'tar' in build.image) build.image = { tar: check('image.tar', build.image.tar, false) };
    return { ...arm, build };
  });
}

/**
 * --resume: every build binary must still be the file the run started with (sha256 recorded in
 * environment.json `arms`), else the resumed trials would measure another build under the same arm.
 */
export function checkBuildsUnchanged(environment: { arms?: Record<string, { build?: Record<string, string> }> } | null, arms: readonly ArmWithBuild[], sha256Of: (path: string) => string): void {
  for (const arm of arms) {
    if (!arm.build) continue;
    const label = arm.variant ? `${arm.backend}:${arm.variant}` : arm.backend;
    const recorded = environment?.arms?.[label]?.build ?? {};
    for (const field of BUILD_BINARY_FIELDS) {
      const path = arm.build[field];
      const before = recorded[`build_${field}_sha256`];
      if (path === undefined || before === undefined) continue;
      const now = `sha256:${sha256Of(path)}`;
      if (now !== before) throw new UserError(`--resume: arm ${label} build.${field} ${path} changed since the run started (${before} then, ${now} now): resuming would mix two builds in one arm — restore the file or start a new run`);
    }
  }
}
