/**
 * An `agent` arm is backend × agent CLI, written in the spec as the arm's variant: `<agent>` or
 * `<agent>@cpu-<model>` (the VM CPU model under emulation, a recorded control: Claude Code's
 * binary needs AVX2, which TCG's default `qemu64` lacks and `max` has). Without `@cpu-` a VM runs
 * qemu's default model, recorded as `qemu64` under TCG.
 */
import { UserError } from '../../harness/errors.ts';
import type { ArmRef } from '../../harness/journal/trial-record.ts';
import { agentByName, type AgentCli } from './agents.ts';

export interface AgentArm {
  agent: AgentCli;
  /** Requested CPU model; null = the accelerator's default. */
  cpuModel: string | null;
}

const CPU_MODELS = ['qemu64', 'max', 'host', 'Haswell', 'Skylake-Client', 'EPYC'] as const;

export function parseAgentArm(arm: ArmRef, index: number | null = null): AgentArm {
  const where = index === null ? `arm ${arm.backend}:${arm.variant ?? ''}` : `arms[${index}].variant`;
  if (!arm.variant) throw new UserError(`${where}: the agent kind needs the agent CLI as the arm's variant (e.g. variant: codex, or codex@cpu-max)`);
  const [name, modifier, ...rest] = arm.variant.split('@');
  if (rest.length > 0) throw new UserError(`${where}: "${arm.variant}" has more than one "@"; write <agent> or <agent>@cpu-<model>`);
  const agent = agentByName(name!, where);
  if (modifier === undefined) return { agent, cpuModel: null };
  const cpu = /^cpu-(.+)$/.exec(modifier)?.[1];
  if (!cpu || !(CPU_MODELS as readonly string[]).includes(cpu)) {
    throw new UserError(`${where}: "@${modifier}" is not a CPU model option; write @cpu-<model> with one of ${CPU_MODELS.join(', ')}`);
  }
  if (!arm.backend.startsWith('qemu-')) throw new UserError(`${where}: @cpu-${cpu} applies to VM backends only (this arm runs on ${arm.backend})`);
  return { agent, cpuModel: cpu };
}
