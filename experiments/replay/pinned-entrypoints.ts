/**
 * `replay.pvisor_agent_entrypoints` (agent → the pinned agent executable pvisor-replay needs) resolve
 * like every other spec path (harness/spec/spec-paths.ts): against the spec file, then the package.
 * One more place is looked at last, the sandbench state directory, because that is where
 * install-pinned-agents.sh installs the pinned releases and where the shipped specs name them
 * (`agents/pinned/codex-0.149.0/...`). A path found nowhere is the spec's error, raised before any
 * trial: left to the plan it only dropped that agent's pvisor-replay arm, so a typo silently
 * shrank the comparison.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { UserError } from '../../harness/errors.ts';
import type { SpecPathResolver } from '../../harness/spec/spec-paths.ts';
import { stateDir } from '../../harness/state-dir.ts';

export const INSTALL_PINNED_AGENTS = 'experiments/replay/reexecute/install-pinned-agents.sh';

/**
 * Every entry absolute. An entry the run would use (pvisor-replay is a subject and the agent one of
 * the spec's agents) that names no file throws a UserError naming the spec file, the field, where
 * it looked and the fix; an unused one stays at its spec-relative place (a shipped spec may list
 * the pinned agents for a subject it does not run).
 */
export function resolvePinnedEntrypoints(replay: { pvisor_agent_entrypoints: Readonly<Record<string, string>>; subjects: readonly string[]; agents: readonly string[] }, resolvePath: SpecPathResolver): Record<string, string> {
  const used = (agent: string) => replay.subjects.includes('pvisor-replay') && replay.agents.includes(agent);
  return Object.fromEntries(Object.entries(replay.pvisor_agent_entrypoints).map(([agent, path]) => [agent, resolveEntrypoint(agent, path, resolvePath, used(agent))]));
}

function resolveEntrypoint(agent: string, path: string, resolvePath: SpecPathResolver, used: boolean): string {
  const places = isAbsolute(path) ? [path] : [...resolvePath.places(path), join(stateDir(), path)];
  const found = places.find((place) => existsSync(place));
  if (found !== undefined) return found;
  if (!used) return places[0]!;
  const where = isAbsolute(path) ? `${path} does not exist` : `"${path}" names no file beside the spec, in the sandbench package or in the state directory (looked at ${places.join(', ')})`;
  throw new UserError(
    `${resolvePath.specFile}: replay.pvisor_agent_entrypoints.${agent}: ${where} — give the path of the pinned ${agent} executable (relative to the spec file, or absolute), ` +
      `or install the pinned releases with ${INSTALL_PINNED_AGENTS} (they land under the state directory, $SANDBENCH_HOME or ~/.cache/sandbench), or remove the entry (${agent} then has no pvisor-replay arm)`,
  );
}
