/** Phase marks and the peak-RSS line an agent runner prints become metrics timed by the host's line stamps. */
import { describe, expect, it } from 'vitest';
import type { OutputLine } from '../../harness/contracts/executor.ts';
import { agentPhases } from '../../experiments/agent/agent-phases.ts';

const spawn = 1_000_000_000n;
const line = (text: string, ms: number, stream: 'stdout' | 'stderr' = 'stdout'): OutputLine => ({ stream, text, tNs: spawn + BigInt(ms * 1e6) });

describe('agentPhases', () => {
  it('times each first mark from spawn, keeps details and reads the peak RSS in MiB', () => {
    const { metrics, details } = agentPhases(
      [
        line('FORWARDER_READY', 5),
        line('AGENT_PHASE start', 90),
        line('AGENT_PHASE imported', 12_000),
        line('AGENT_PHASE imported', 13_000),
        line('AGENT_PHASE finished finished', 14_500),
        line('AGENT_RSS_PEAK_KIB 284160', 14_600),
      ],
      spawn,
    );
    expect(metrics).toEqual({ phase_start_ms: 90, phase_imported_ms: 12_000, phase_finished_ms: 14_500, agent_rss_peak_mib: 277.5 });
    expect(details).toEqual({ finished: 'finished' });
  });

  it('ignores stderr and lines that only look like marks', () => {
    const { metrics } = agentPhases([line('AGENT_PHASE start', 10, 'stderr'), line('echo AGENT_PHASE start', 20), line('AGENT_RSS_PEAK_KIB 12 34', 30)], spawn);
    expect(metrics).toEqual({});
  });
});
