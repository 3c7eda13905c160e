/**
 * The agent kind keeps the native trajectory of a CLI that leaves one in its workspace
 * (`AgentCli.agentKindTrajectory`: OpenHands' joined events) in the bundle, under
 * agent-trajectories/<attempt>/<file name>, and says in the record where it is, its size and how
 * many events it holds. An absent or unreadable trajectory is a fact of the trial (the agent's own
 * verdict stands on exit, turns and candidate), never a silent gap.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { CandidateFiles } from '../../harness/contracts/executor.ts';

export const AGENT_TRAJECTORY_DIR = 'agent-trajectories';

export async function keepTrajectory(bundleDir: string, attempt: string, workspacePath: string, candidates: CandidateFiles): Promise<Record<string, unknown>> {
  const content = await candidates.read(workspacePath).catch(() => null);
  if (content === null) return { trajectory_problem: `no trajectory at ${workspacePath} in the collected workspace` };
  const relative = join(AGENT_TRAJECTORY_DIR, attempt, basename(workspacePath));
  mkdirSync(join(bundleDir, AGENT_TRAJECTORY_DIR, attempt), { recursive: true });
  writeFileSync(join(bundleDir, relative), content);
  let events: number | null = null;
  try {
    const parsed: unknown = JSON.parse(content.toString('utf8'));
    events = Array.isArray(parsed) ? parsed.length : null;
  } catch {
    // kept as written; the count says it is not a JSON array
  }
  return { trajectory_file: relative, trajectory_bytes: content.length, trajectory_events: events };
}
