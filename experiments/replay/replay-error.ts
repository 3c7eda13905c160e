/**
 * Every way a trajectory can be refused, each with its own process exit code so a harness (or a
 * shell script) can tell a malformed file from an unsupported one without parsing stderr.
 * 2 stays "bad command-line input" (commander, UserError default); the categories start at 10.
 */
import { UserError } from '../../harness/errors.ts';

export const REPLAY_FAILURES = {
  /** The file cannot be read (missing, a directory, permissions). */
  unreadable_trajectory: 10,
  /** Not valid JSON / JSONL (truncated write, stray bytes). */
  malformed_json: 11,
  /** Valid JSON that does not have the agent's native shape. */
  schema_mismatch: 12,
  /** A schema/agent version the parser does not model. */
  unsupported_version: 13,
  /** A tool result whose call never appeared before it. */
  orphan_tool_result: 14,
  /** Fewer complete tool batches than --after-step asks for. */
  boundary_out_of_range: 15,
  /** The prefix could not be written to --out. */
  output_failed: 16,
} as const;
export type ReplayFailureCategory = keyof typeof REPLAY_FAILURES;

export class ReplayError extends UserError {
  constructor(
    readonly category: ReplayFailureCategory,
    detail: string,
  ) {
    super(`${category}: ${detail}`, REPLAY_FAILURES[category]);
    this.name = 'ReplayError';
  }
}

/** Category of an exit code, for the experiment's failure record; null if it is not a replay code. */
export function categoryOfExitCode(code: number | null): ReplayFailureCategory | null {
  const entry = Object.entries(REPLAY_FAILURES).find(([, value]) => value === code);
  return entry ? (entry[0] as ReplayFailureCategory) : null;
}
