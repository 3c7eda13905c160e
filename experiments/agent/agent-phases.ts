/**
 * Phase marks an agent's own runner prints (`AGENT_PHASE <name> [detail]`, e.g.
 * openhands_runner.py: start, imported, conversation, finished) and the runner's peak RSS
 * (`AGENT_RSS_PEAK_KIB <n>`: getrusage's ru_maxrss of the runner process, the kernel's high-water mark,
 * read inside the sandbox so it holds on every backend, VMs included). Each mark is timed by the
 * host when its line arrives (never a guest clock), as ms since spawn: `phase_<name>_ms`.
 */
import type { OutputLine } from '../../harness/contracts/executor.ts';

const PHASE = /^AGENT_PHASE ([a-z_]+)(?: (.*))?$/;
const RSS = /^AGENT_RSS_PEAK_KIB (\d+)$/;

export interface AgentPhases {
  metrics: Record<string, number>;
  /** Each mark's detail text (e.g. the conversation's final status), keyed by phase. */
  details: Record<string, string>;
}

export function agentPhases(lines: readonly OutputLine[], tSpawnNs: bigint): AgentPhases {
  const metrics: Record<string, number> = {};
  const details: Record<string, string> = {};
  for (const line of lines) {
    if (line.stream !== 'stdout') continue;
    const text = line.text.trim();
    const phase = PHASE.exec(text);
    if (phase && !(`phase_${phase[1]}_ms` in metrics)) {
      metrics[`phase_${phase[1]}_ms`] = Number(line.tNs - tSpawnNs) / 1e6;
      if (phase[2] !== undefined) details[phase[1]!] = phase[2];
    }
    const rss = RSS.exec(text);
    if (rss) metrics.agent_rss_peak_mib = Number(rss[1]) / 1024;
  }
  return { metrics, details };
}
