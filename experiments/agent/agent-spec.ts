/** The agent kind's spec section (`agent:`): the model script, prompt, candidate check and model capacity. */
import { z } from 'zod';
import { duration } from '../../harness/spec/fields.ts';
import { defineSection } from '../../harness/spec/kind-spec.ts';

/** agent kind: arms are backend × agent CLI, variant `<agent>` or `<agent>@cpu-<model>` (experiments/agent). */
export const AgentSpecSchema = z
  .object({
    /** A CLI that sent no model request by then is stopped: failed/timeout (the study's 90 s preflight). */
    init_deadline: duration.default(90_000),
    /** The model script (relative to the spec file, a shipped `data/model-scripts/` file, or absolute); its default task drives every CLI. */
    script: z.string().min(1).default('data/model-scripts/marker.yaml'),
    prompt: z.string().min(1).default('Run the shell command `printf fixture > marker.txt` in the current directory, then reply done.'),
    /** The file the script's tool call writes, and the bytes it must hold for a valid trial. */
    candidate_file: z.string().min(1).default('marker.txt'),
    candidate_content: z.string().default('fixture'),
    /** Model service capacity: service time = base_ms + per_token_ms × reply tokens. */
    slots: z.number().int().positive().default(1),
    base_ms: z.number().nonnegative().default(0),
    per_token_ms: z.number().nonnegative().default(0),
    /** Debug pass: trace every connection attempt with strace (host arms only; timings inflated, flagged). */
    debug_trace: z.boolean().default(false),
  })
  .strict();

export type AgentSpec = z.output<typeof AgentSpecSchema>;

export const agentSpecSection = defineSection({
  key: 'agent',
  schema: AgentSpecSchema,
  paths: (section, resolvePath) => ({ ...section, script: resolvePath(section.script) }),
  encode: (parsed) => ({ ...parsed, init_deadline: `${parsed.init_deadline}ms` }),
});
