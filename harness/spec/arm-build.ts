/**
 * `arms[i].build`: what one arm runs that another arm of the same backend does not — the thing being
 * released. Two arms of one run that differ only here are the two sides of an interleaved A/B gate
 * (`sandbench gate <bundle> --baseline-arm A --candidate-arm B`): same host, same session, randomized
 * within every block, so run-level offsets cancel and the build is the one intended difference.
 *
 *   runtime  podman/docker: the OCI runtime binary (`podman run --runtime <path>`; docker: registered
 *            in the private dockerd's config under a name derived from the path, executors/docker-runtime.ts)
 *   pvisor   pvisor: the pVisor CLI binary launched instead of `pvisor` on PATH
 *   wrapper  host/staged: a program the sandbox launch runs under (`<wrapper> <launch argv...>`; it
 *            must exec its arguments), e.g. a new launcher or a shim to measure
 *   image    any backend: the task image of this arm — a package list (built like `image:`) or a
 *            prebuilt rootfs tar
 *
 * Paths are resolved against the spec file's directory and must name executable files (tar: a
 * readable file) when a run starts (harness/spec/arm-build-check.ts); the identity (path, sha256,
 * image digest) is recorded per arm in environment.json and is not an environment difference.
 */
import { z } from 'zod';

export const ArmImageSchema = z.union([
  z.object({ packages: z.array(z.string().min(1)).min(1) }).strict(),
  z.object({ tar: z.string().min(1) }).strict(),
], { message: 'expected {packages: [...]} (a Debian package list) or {tar: <path of a rootfs tar>}' });

export const ArmBuildSchema = z
  .object({
    runtime: z.string().min(1).optional(),
    pvisor: z.string().min(1).optional(),
    wrapper: z.string().min(1).optional(),
    image: ArmImageSchema.optional(),
  })
  .strict()
  .refine((build) => Object.keys(build).length > 0, 'an empty build: name runtime, pvisor, wrapper or image (or drop build)');

export type ArmBuild = z.output<typeof ArmBuildSchema>;
export type ArmImage = z.output<typeof ArmImageSchema>;

/** The binary fields of a build, in display order. */
export const BUILD_BINARY_FIELDS = ['runtime', 'pvisor', 'wrapper'] as const;
export type BuildBinaryField = (typeof BUILD_BINARY_FIELDS)[number];

/** Probe detail keys with this prefix describe the arm's build, never the backend: compare and gate read them as the intended difference. */
export const BUILD_DETAIL_PREFIX = 'build_';

/**
 * A build field the arm's backend would silently ignore is an error. `buildFields` is what the
 * backend's traits say it honours (harness/backends.ts); undefined = a module backend whose traits are
 * known only once it is loaded (checked then).
 */
export function buildFieldIssues(arm: { backend: string; build?: ArmBuild }, buildFields: readonly BuildBinaryField[] | undefined): { field: BuildBinaryField; message: string }[] {
  if (!arm.build || !buildFields) return [];
  return BUILD_BINARY_FIELDS.filter((field) => arm.build![field] !== undefined && !buildFields.includes(field)).map((field) => ({
    field,
    message: `build.${field} does not apply to the ${arm.backend} backend (it honours ${buildFields.length > 0 ? buildFields.map((f) => `build.${f}`).join(', ') : 'no binary build field'}${buildFields.length > 0 ? '' : ', only build.image'}): remove it, or move it to an arm whose backend takes it`,
  }));
}
