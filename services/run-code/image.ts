/**
 * The task image a run-code server runs its sandboxes from. The default image (harness/spec/schema.ts
 * ImageSpecSchema) has interpreters only; the compilers are a declared extra package set that only
 * run-code adds, so no other kind's image (and its digest, and every backend's cached import of it)
 * grows by what g++ weighs. With the set, the image is its own cache entry (the package list is part
 * of the image's cache key), built once offline from the Debian mirror like the default one.
 */
import type { ImageRequest } from '../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';

/** What the compiled-language recipes (languages.ts) need: g++ pulls gcc, binutils and libc6-dev. */
export const RUN_CODE_COMPILER_PACKAGES = ['g++'] as const;

export function runCodeImageRequest(options: { compilers: boolean }): ImageRequest {
  const base = ImageSpecSchema.parse({});
  return options.compilers ? { ...base, packages: [...new Set([...base.packages, ...RUN_CODE_COMPILER_PACKAGES])] } : base;
}
