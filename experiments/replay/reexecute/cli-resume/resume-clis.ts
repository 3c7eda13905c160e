/**
 * The real CLIs a `continue` trial can resume through their native resume (issue 19,
 * `replay.continue_with`): which agent layer, which trajectory format feeds it, its in-sandbox entry
 * and seeder, how its session template is bridged from the canonical history, and how its request
 * bodies say what prefix it sent. Adding a CLI is one entry here plus its template, seeder and entry.
 */
import { AGENTS, type AgentCli } from '../../../agent/agents.ts';
import type { ReplayAgent } from '../../agents.ts';
import type { FixtureEntry } from '../../replay-fixtures.ts';
import { claudeTemplateForEntry } from './claude-session.ts';
import { templateForEntry } from './codex-session.ts';
import { sentAnthropicPrefix, sentPrefix, type SentPrefix } from './request-prefix.ts';

export const RESUME_CLI_NAMES = ['codex', 'claude'] as const;
export type ResumeCliName = (typeof RESUME_CLI_NAMES)[number];

/** What every session template shares (the seeder reads the rest). */
export interface SessionTemplate {
  cli_version: string;
  bridged_from: { format: string; recorded_version: string | null; modelled_version: string; canonical_schema: string; session_id: string | null; after_step: number };
  calls: string[];
  dropped: string[];
}

export interface ResumeCli {
  name: ResumeCliName;
  agent: AgentCli;
  /** The trajectory format whose prefixes it resumes. */
  format: ReplayAgent;
  entry: string;
  seeder: string;
  template(entry: FixtureEntry, cliVersion: string): SessionTemplate;
  sentPrefix(body: string, prefixCalls: readonly string[], prompt: string): SentPrefix;
}

export const RESUME_CLIS: Record<ResumeCliName, ResumeCli> = {
  codex: { name: 'codex', agent: AGENTS.codex, format: 'codex', entry: 'codex-resume.sh', seeder: 'seed-codex-session.py', template: templateForEntry, sentPrefix },
  claude: { name: 'claude', agent: AGENTS.claude, format: 'claude-code', entry: 'claude-resume.sh', seeder: 'seed-claude-session.py', template: claudeTemplateForEntry, sentPrefix: sentAnthropicPrefix },
};
