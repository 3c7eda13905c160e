/**
 * `backends: { mine: { module: ./my-backend.mjs } }`: an ES module exporting a backend descriptor
 * (harness/contracts/backend-descriptor.ts; docs/backends.md has the contract and an example), for a
 * sandbox that needs code — a hosted provider's API, a custom daemon. The export is checked here, so
 * a module that exports something else fails with the spec field, never at the first trial.
 */
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { UserError } from '../../harness/errors.ts';
import { BUILD_BINARY_FIELDS } from '../../harness/spec/arm-build.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';

const TraitsSchema = z
  .object({
    launch: z.enum(['direct', 'engine-client', 'vm']),
    clientCommand: z.string().optional(),
    networkIsolated: z.boolean(),
    privateTmp: z.boolean(),
    hostTraceable: z.boolean(),
    launchesArgvDirectly: z.boolean(),
    runtimeHelpersOutsideCgroup: z.boolean(),
    isolatesFilesystem: z.boolean(),
    buildFields: z.array(z.enum(BUILD_BINARY_FIELDS)),
    memoryAccounting: z.enum(['cgroup', 'process-tree']),
    fleetNeeds: z.object({ privileged: z.string().optional(), namespaces: z.string().optional(), kvm: z.string().optional(), containerStorage: z.boolean().optional() }),
  })
  .passthrough();

const DescriptorShape = z
  .object({
    name: z.string(),
    summary: z.string(),
    traits: TraitsSchema,
    create: z.custom<ExecutorDescriptor['create']>((value) => typeof value === 'function', 'expected a function create(variant, build) returning an executor'),
    checkpoint: z.custom<NonNullable<ExecutorDescriptor['checkpoint']>>((value) => typeof value === 'function').optional(),
    leftovers: z.array(z.object({ name: z.string(), find: z.custom((value) => typeof value === 'function') })).optional(),
  })
  .passthrough();

/** Load the module and return its descriptor under the spec's name; a UserError names the field otherwise. */
export async function loadBackendModule(name: string, modulePath: string): Promise<ExecutorDescriptor> {
  const field = `backends.${name}.module`;
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(modulePath).href)) as Record<string, unknown>;
  } catch (error) {
    throw new UserError(`${field}: cannot load ${modulePath}: ${(error as Error).message.split('\n')[0]} — give the path of an ES module (.mjs, or .js in a "type": "module" package)`);
  }
  const candidate = exports.default ?? exports.backend;
  const parsed = DescriptorShape.safeParse(candidate);
  if (!parsed.success) {
    const problem = candidate === undefined ? `exports no descriptor (found: ${Object.keys(exports).join(', ') || 'nothing'})` : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(descriptor)'}: ${issue.message}`).join('; ');
    throw new UserError(`${field}: ${modulePath} ${problem} — export default (or export const backend) a descriptor {name, summary, traits, create}: see docs/backends.md`);
  }
  const descriptor = candidate as ExecutorDescriptor;
  // The spec's key is the name arms use; the module's own name is kept for the summary only.
  return descriptor.name === name ? descriptor : { ...descriptor, name, summary: `${descriptor.summary} (module name ${descriptor.name})` };
}
