/** Native-format generators by agent. */
import type { ReplayAgent } from '../agents.ts';
import type { FixtureTask } from '../fixture-task.ts';
import { generateClaudeCode } from './claude-code.ts';
import { generateCodex } from './codex.ts';
import { generateMiniSweAgent } from './mini-swe-agent.ts';
import { generateOpencode } from './opencode.ts';
import { generateOpenhands } from './openhands.ts';
import { generatePiAgent } from './pi-agent.ts';
import { generateSweAgent } from './swe-agent.ts';

export const GENERATORS: Record<ReplayAgent, (task: FixtureTask) => string> = {
  'claude-code': generateClaudeCode,
  codex: generateCodex,
  opencode: generateOpencode,
  'mini-swe-agent': generateMiniSweAgent,
  openhands: generateOpenhands,
  'pi-agent': generatePiAgent,
  'swe-agent': generateSweAgent,
};
