/**
 * A rollout arm is backend × agent, written as the arm's variant: absent or `builtin` (the built-in
 * minimal agent), or an agent-kind CLI (`codex`, `codex@cpu-max`, ...), optionally followed by
 * `+drop-last-write`: a deliberately faulty, clearly labelled substrate variant that loses the
 * lexically last changed file of every candidate on collect (it exists to prove the reward delta
 * detects a substrate that loses writes; never a real backend's behaviour).
 *
 * `oracle` is the control arm (issue 34): the built-in agent on every attempt's right path, i.e. the
 * task's gold solution (a SWE-bench row's gold patch applied with `git apply`, a built-in task's
 * right-path commands) delivered as scripted tool calls through the same pipeline (workspace, sandbox,
 * model service, collect, fresh scoring sandbox). No model choice is involved, so its reward must be
 * 1.0 on every backend; anything less is a substrate failure (rollout-record.ts names it).
 */
import { UserError } from '../../harness/errors.ts';
import type { ArmRef } from '../../harness/journal/trial-record.ts';
import { parseAgentArm } from '../agent/agent-arms.ts';
import type { AgentCli } from '../agent/agents.ts';

export const BUILTIN_AGENT = 'builtin';
export const ORACLE_AGENT = 'oracle';
export const FAULTS = ['drop-last-write'] as const;
export type Fault = (typeof FAULTS)[number];

export interface RolloutArm {
  /** null = the built-in agent. */
  cli: AgentCli | null;
  agentName: string;
  cpuModel: string | null;
  fault: Fault | null;
  /** The control arm: every attempt takes the gold path. */
  oracle: boolean;
}

export function parseRolloutArm(arm: ArmRef, index: number | null = null): RolloutArm {
  const where = index === null ? `arm ${arm.backend}:${arm.variant ?? ''}` : `arms[${index}].variant`;
  const [agentPart, ...faults] = (arm.variant ?? BUILTIN_AGENT).split('+');
  if (faults.length > 1) throw new UserError(`${where}: "${arm.variant}" has more than one "+fault"; write <agent>[+${FAULTS.join('|+')}]`);
  const fault = faults[0] ?? null;
  if (fault !== null && !(FAULTS as readonly string[]).includes(fault)) throw new UserError(`${where}: unknown fault "+${fault}"; the only faulty variant is +${FAULTS.join(', +')}`);
  const typedFault = fault as Fault | null;
  if (!agentPart || agentPart === BUILTIN_AGENT) return { cli: null, agentName: BUILTIN_AGENT, cpuModel: null, fault: typedFault, oracle: false };
  if (agentPart === ORACLE_AGENT) return { cli: null, agentName: ORACLE_AGENT, cpuModel: null, fault: typedFault, oracle: true };
  const parsed = parseAgentArm({ backend: arm.backend, variant: agentPart }, index);
  return { cli: parsed.agent, agentName: parsed.agent.name, cpuModel: parsed.cpuModel, fault: typedFault, oracle: false };
}
