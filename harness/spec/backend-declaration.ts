/**
 * `backends:` — sandboxes a spec declares without TypeScript (docs/backends.md):
 *
 *   backends:
 *     nspawn:                       # the name arms use
 *       template: { probe: [...], launch: [...], staging: overlay, ... }
 *       traits: { launch: direct, network_isolated: true, ... }
 *     mine:
 *       module: ./my-backend.mjs    # an ES module exporting a BackendDescriptor
 *
 * A template is a sandbox CLI described by argv templates with {placeholders} (the list and what each
 * expands to: TEMPLATE_PLACEHOLDERS); the generic adapter (executors/template/) supplies the rootfs,
 * the staged workspace, the timing path, run-id naming `clean` finds, and the identity recorded in
 * environment.json. Paths (module, and argv words starting with ./) resolve against the spec file.
 */
import { z } from 'zod';
import { BUILD_BINARY_FIELDS } from './arm-build.ts';
import { duration } from './fields.ts';

/** Every placeholder a template argv may use, with what it becomes (the error for an unknown one lists them). */
export const TEMPLATE_PLACEHOLDERS = {
  rootfs: 'the task image as a root filesystem directory (read-only: never write it)',
  workspace: 'the host directory the sandbox must show as its workspace (staged as `staging` says)',
  workdir: 'the workspace path inside the sandbox (`workdir`; default /workspace, or {workspace} under `paths: host`)',
  argv: 'the task command as separate words (a whole word only): cd to {workdir}, set the task env, exec argv',
  baseline: 'the baseline workspace (staging: upper: the sandbox overlays it itself; never write it)',
  upper: 'staging upper: the directory the sandbox writes the workspace changes to',
  work: 'staging upper: an empty overlayfs work directory beside {upper}',
  cpus: 'the CPU list of the trial\'s controls (e.g. 0,1), or empty',
  memory_mib: 'the memory limit of the trial\'s controls in MiB, or empty',
  name: 'a per-trial sandbox name holding the run id (sandbench-<run>-<trial>), for `clean` to find',
  short_name: 'a short per-trial name (sb-<12 hex digits>, unique per run and trial) for sandboxes that limit names, e.g. a hostname; `clean` cannot read a run from it',
  run_id: 'the run id',
  trial_id: 'the trial id',
  trial_dir: 'a per-trial scratch directory owned by the harness (removed after the trial)',
  mounts: 'the `mount` template once per read-only tool layer (a whole word only)',
  service: 'the `service` template when the task has a service socket (a whole word only)',
  source: 'inside `mount`: the host directory of the layer',
  target: 'inside `mount` and `service`: the path inside the sandbox (under `paths: host`, the host path: {source} or {socket})',
  socket: 'inside `service`: the host path of the service\'s Unix socket',
} as const;
export type TemplatePlaceholder = keyof typeof TEMPLATE_PLACEHOLDERS;

const argvTemplate = z.array(z.string()).min(1, 'expected a non-empty argv list, e.g. [runsc, --version]');

export const TEMPLATE_STAGINGS = ['copy', 'overlay', 'upper'] as const;

/**
 * Where the task finds its workspace, service socket and tool layers. `sandbox`: at the sandbox's
 * own paths (/workspace, /run/sandbench/...), which the template binds there. `host`: at their host
 * paths, for a sandbox that shows (part of) the host's own filesystem instead of binding, e.g.
 * firejail: it cannot create a mount point the host lacks, so the task is told the host paths, as
 * the host backend tells it.
 */
export const TEMPLATE_PATHS = ['sandbox', 'host'] as const;

export const TemplateSchema = z
  .object({
    /** Run once per run by `doctor` and the probe: exit 0 = available; its first output line is the version. */
    probe: argvTemplate,
    /** One trial's launch. Must run {argv} (directly or through a shell) so the task's own output reaches the harness. */
    launch: argvTemplate,
    /**
     * How the workspace is made (timed apart as prepare_ms): `copy` (a full copy, {workspace}),
     * `overlay` (the adapter mounts an overlayfs over the baseline at {workspace}), or `upper` (the
     * sandbox overlays {baseline} itself, writing to {upper} with {work}).
     */
    staging: z.enum(TEMPLATE_STAGINGS).default('copy'),
    /** sandbox (default) | host: see TEMPLATE_PATHS. */
    paths: z.enum(TEMPLATE_PATHS).default('sandbox'),
    /** The workspace path inside the sandbox ({workdir}); default /workspace, or '{workspace}' under `paths: host`. */
    workdir: z.string().min(1).optional(),
    /** Per read-only tool layer, expanded at {mounts}: e.g. ['--bind-ro={source}:{target}']. */
    mount: argvTemplate.optional(),
    /** For a task with a service socket, expanded at {service}: e.g. ['--bind={socket}:{target}']. */
    service: argvTemplate.optional(),
    /** Once per run before the first trial, and once after the last (outside timing). */
    prepare: argvTemplate.optional(),
    teardown: argvTemplate.optional(),
    /** After each trial (outside timing), e.g. to remove a named sandbox. Failures are recorded, never fatal. */
    finish: argvTemplate.optional(),
    /**
     * What `clean` runs to find a dead run's sandboxes: `list` prints one name per line (names hold
     * the run id: use {name} when launching), `remove` takes one (as {name}).
     */
    leftovers: z.object({ list: argvTemplate, remove: argvTemplate }).strict().optional(),
    /** Extra host environment for every command of this template (e.g. a config path). */
    env: z.record(z.string(), z.string()).default({}),
    /** A launch that prints nothing for this long is killed and recorded as setup_failed, naming the template. */
    ready_timeout: duration.optional(),
  })
  .strict();
export type BackendTemplate = z.output<typeof TemplateSchema>;

/** The traits a declared backend states (harness/backends.ts says what each changes), snake_case in YAML. */
export const DeclaredTraitsSchema = z
  .object({
    launch: z.enum(['direct', 'engine-client', 'vm']).default('direct'),
    client_command: z.string().min(1).optional(),
    network_isolated: z.boolean(),
    private_tmp: z.boolean().default(true),
    host_traceable: z.boolean().default(false),
    launches_argv_directly: z.boolean().default(false),
    runtime_helpers_outside_cgroup: z.boolean().default(false),
    isolates_filesystem: z.boolean().default(true),
    build_fields: z.array(z.enum(BUILD_BINARY_FIELDS)).default([]),
    memory_accounting: z.enum(['cgroup', 'process-tree']).default('process-tree'),
    fleet_needs: z.object({ privileged: z.string().optional(), namespaces: z.string().optional(), kvm: z.string().optional(), container_storage: z.boolean().optional() }).strict().default({}),
  })
  .strict();
export type DeclaredTraits = z.output<typeof DeclaredTraitsSchema>;

export const TemplateBackendSchema = z.object({ summary: z.string().optional(), template: TemplateSchema, traits: DeclaredTraitsSchema }).strict();
export const ModuleBackendSchema = z.object({ module: z.string().min(1) }).strict();

export const BackendDeclarationSchema = z.union([TemplateBackendSchema, ModuleBackendSchema], {
  message: 'expected {template: {...}, traits: {...}} (a sandbox CLI) or {module: <path of an ES module exporting a backend descriptor>}',
});
export type BackendDeclaration = z.output<typeof BackendDeclarationSchema>;
export type TemplateBackendDeclaration = z.output<typeof TemplateBackendSchema>;

export const BackendDeclarationsSchema = z.record(z.string().regex(/^[a-z][a-z0-9-]*$/, 'a backend name is lower-case letters, digits and dashes'), BackendDeclarationSchema);
