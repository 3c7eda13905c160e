/** The replay kind's spec section (`replay:`): agents' formats, trajectories, repetitions, subjects. */
import { z } from 'zod';
import { defineSection } from '../../harness/spec/kind-spec.ts';
import { duration } from '../../harness/spec/fields.ts';
import { resolvePinnedEntrypoints } from './pinned-entrypoints.ts';

export const ReplaySpecSchema = z
  .object({
    agents: z
      .array(z.enum(['claude-code', 'codex', 'opencode', 'mini-swe-agent', 'openhands', 'pi-agent', 'swe-agent']))
      .min(1)
      .default(['claude-code', 'codex', 'opencode', 'mini-swe-agent', 'openhands', 'pi-agent', 'swe-agent']),
    trajectories: z.number().int().positive().default(20),
    repetitions: z.number().int().positive().default(3),
    subjects: z.array(z.enum(['sandbench', 'pvisor-replay'])).min(1).default(['sandbench', 'pvisor-replay']),
    /** How sandbench's preparer is launched: a plain-JS bundle built before the first trial (default:
     *  tsx start-up would dominate the timing), a V8 startup snapshot of it, the lean tsx entry, or the full CLI. */
    preparer_entry: z.enum(['bundle', 'snapshot', 'tsx-lean', 'cli']).default('bundle'),
    /** What a trial does (issue 19): `prepare-only` parses and cuts, executing nothing (issue 6);
     *  `replay-only` re-executes the prefix's tool calls in a fresh workspace on each spec arm's
     *  backend and stops before the next model request; `continue` replays the same way, then the
     *  built-in agent continues from the replayed prefix against the scripted model service. */
    mode: z.enum(['prepare-only', 'replay-only', 'continue', 'branch-point']).default('prepare-only'),
    /** The synthetic task the re-executing modes' trajectories encode: `effects` (files, python, git,
     *  a fresh call) or `builtin-fix`: a built-in rollout task whose prefix makes part of the fix, so a
     *  continued attempt is scored by the task's evaluator (reward) — and the only task mode
     *  `branch-point` takes (its file-checkpoint way writes files; `effects` makes a .git). Mode
     *  `branch-point` reaches the same prefix state three ways per backend: prefix replay, a fork of a
     *  file checkpoint taken once, and the prefix run from scratch by the built-in agent. */
    task: z.enum(['effects', 'builtin-fix']).default('effects'),
    /** builtin-fix: seeded fraction of trajectories whose continuation takes the task's wrong path (reward 0). */
    wrong_fraction: z.number().min(0).max(1).default(0.25),
    /** builtin-fix in mode continue: the one backend every continued attempt is scored on (a fresh sandbox per score, as the rollout kind). */
    scoring_backend: z.string().min(1).default('staged'),
    scoring_timeout: duration.default(60_000),
    /** Mode continue: who continues from the replayed prefix. `builtin-agent` (agent.py
     *  --resume-from, every format), `codex` (the agent layer's codex 0.169.0 through `codex exec
     *  resume`, codex-format trajectories only) or `claude` (the layer's Claude Code 2.1.332 through
     *  `claude --resume`, claude-code-format only), each from a session seeded with the replayed
     *  prefix (reexecute/cli-resume/). */
    continue_with: z.enum(['builtin-agent', 'codex', 'claude']).default('builtin-agent'),
    /** pvisor-replay --replay-only needs the exact agent release a format pins (codex 0.149.0, ...):
     *  agent → that executable, relative to the spec file (or the package, or the state directory
     *  where install-pinned-agents.sh puts them: pinned-entrypoints.ts). Agents without one have no
     *  pvisor-replay arm (reason recorded). */
    pvisor_agent_entrypoints: z.record(z.string(), z.string().min(1)).default({}),
    /** Other ways to reach the same branch point, measured elsewhere (a checkpoint bundle, a
     *  published figure), shown beside the replay-only cost per backend; each names its source. */
    branch_point_references: z
      .array(
        z
          .object({
            backend: z.string().min(1),
            way: z.string().min(1),
            statistic: z.string().min(1),
            value_ms: z.number().nonnegative(),
            n: z.number().int().positive().nullable().default(null),
            source: z.string().min(1),
          })
          .strict(),
      )
      .default([]),
  })
  .strict()
  .refine((replay) => replay.continue_with === 'builtin-agent' || (replay.mode === 'continue' && replay.agents.every((agent) => agent === (replay.continue_with === 'claude' ? 'claude-code' : replay.continue_with))), {
    path: ['continue_with'],
    message: 'codex / claude resume their own format\'s prefixes only and need mode: continue; set mode: continue and agents: [codex] (continue_with: codex) or [claude-code] (continue_with: claude), or continue_with: builtin-agent',
  });

export type ReplaySpec = z.output<typeof ReplaySpecSchema>;

export const replaySpecSection = defineSection({
  key: 'replay',
  schema: ReplaySpecSchema,
  paths: (section, resolvePath) => ({ ...section, pvisor_agent_entrypoints: resolvePinnedEntrypoints(section, resolvePath) }),
  // One planned trial per (repetition, trajectory, subject, agent): replay-plan.ts.
  expansion: (replay) => [
    {
      what: 'planned trials',
      factors: [
        { field: 'replay.trajectories', value: replay.trajectories },
        { field: 'replay.repetitions', value: replay.repetitions },
        { field: 'replay.agents', value: replay.agents.length },
        { field: 'replay.subjects', value: replay.subjects.length },
      ],
      limit: 'planned_trials',
    },
  ],
});
