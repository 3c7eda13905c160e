/** Native parsers by agent: text of the native file → canonical history (throws ReplayError). */
import type { ReplayAgent } from '../agents.ts';
import type { CanonicalHistory } from '../canonical-history.ts';
import { parseClaudeCode } from './claude-code.ts';
import { parseCodex } from './codex.ts';
import { parseMiniSweAgent } from './mini-swe-agent.ts';
import { parseOpencode } from './opencode.ts';
import { parseOpenhands } from './openhands.ts';
import { parsePiAgent } from './pi-agent.ts';
import { parseSweAgent } from './swe-agent.ts';

export const PARSERS: Record<ReplayAgent, (text: string) => CanonicalHistory> = {
  'claude-code': parseClaudeCode,
  codex: parseCodex,
  opencode: parseOpencode,
  'mini-swe-agent': parseMiniSweAgent,
  openhands: parseOpenhands,
  'pi-agent': parsePiAgent,
  'swe-agent': parseSweAgent,
};
