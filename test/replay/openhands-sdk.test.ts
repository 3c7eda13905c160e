/**
 * The OpenHands SDK's (V1) events, as the agent kind's openhands variant keeps them (a real run of
 * openhands-sdk 1.34.0 against the marker script, 2026-12-02; system prompt and tool descriptions
 * cut), parse through the openhands format: user prompt, the terminal call with the scripted
 * command and its exit code, the finish call and its result.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PARSERS } from '../../experiments/replay/parse/index.ts';
import { ReplayError } from '../../experiments/replay/replay-error.ts';

const FIXTURE = join(import.meta.dirname, '../fixtures/openhands/sdk-events-1.34.0.json');

describe('openhands SDK events', () => {
  it('become a canonical history with the shell call and its result', () => {
    const history = PARSERS.openhands(readFileSync(FIXTURE, 'utf8'));
    expect(history.source.recorded_version).toBeNull();
    const shape = history.messages.map((m) => (m.role === 'assistant' ? `assistant:${m.tool_calls.map((c) => `${c.kind}:${c.native_name}`).join(',')}` : m.role === 'tool' ? `tool:${m.exit_code}` : m.role));
    expect(shape).toEqual(['system', 'user', 'assistant:shell:terminal', 'tool:0', 'assistant:other:finish', 'tool:null']);
    const call = history.messages[2]!;
    expect(call.role === 'assistant' && call.tool_calls[0]!.kind === 'shell' ? call.tool_calls[0]!.command : null).toBe('printf fixture > marker.txt');
    expect(history.messages[1]).toMatchObject({ role: 'user', text: expect.stringContaining('printf fixture > marker.txt') });
  });

  it('an observation without its action is an orphan tool result', () => {
    const events = JSON.parse(readFileSync(FIXTURE, 'utf8')) as unknown[];
    const broken = JSON.stringify(events.filter((_, i) => i !== 2));
    expect(() => PARSERS.openhands(broken)).toThrow(ReplayError);
    expect(() => PARSERS.openhands(broken)).toThrow(/no earlier tool call/);
  });
});
