/**
 * A rollout whose native trajectory is lost is an infrastructure failure, never a task failure:
 * a real host run of the built-in agent whose trajectory file is cut short after the agent finished
 * (what a substrate that loses the tail of a write does) — every attempt completes its task, yet is
 * `recording_failed` with no reward, the broken bytes are still stored, and the cell's
 * denominators stay intact. About 15 s.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { BUILTIN_AGENT_SCRIPT, createRolloutExperiment } from '../../experiments/rollout/rollout-kind.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import { runSpec } from '../../harness/run/run-spec.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-trajectory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real built-in agent, then its trajectory truncated to half before the sandbox exits. */
function truncatingAgent(): string {
  const source = readFileSync(BUILTIN_AGENT_SCRIPT, 'utf8');
  const main = 'if __name__ == "__main__":\n    sys.exit(main())';
  expect(source).toContain(main);
  const path = join(dir, 'agent.py');
  writeFileSync(
    path,
    source.replace(
      main,
      [
        'if __name__ == "__main__":',
        '    _code = main()',
        '    _path = sys.argv[sys.argv.index("--trajectory") + 1]',
        '    with open(_path, "rb") as _f:',
        '        _data = _f.read()',
        '    with open(_path, "wb") as _f:',
        '        _f.write(_data[: len(_data) // 2])',
        '    sys.exit(_code)',
      ].join('\n'),
    ),
  );
  return path;
}

describe('rollout trajectory recording', () => {
  it('a completed rollout whose trajectory does not parse is recording_failed, unscored, its bytes kept', async () => {
    const spec = join(dir, 'spec.yaml');
    writeFileSync(spec, 'name: traj-lost\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 3\ntimeout: 120s\nresamples: 500\nrollout:\n  attempts: 2\n  concurrency: [2]\n  model: [{ slots: 2, base_ms: 0 }]\n  scoring_backend: host\n');
    const base = await runWiring();
    const kind = createRolloutExperiment({ agentScript: truncatingAgent() });
    const out = join(dir, 'bundle');
    const result = await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: { ...base, kindFor: (name) => (name === 'rollout' ? kind : base.kindFor(name)) } });
    expect(result.records).toHaveLength(2);
    for (const record of result.records) {
      expect(record.exit_code, JSON.stringify(record.notes)).toBe(0); // the agent itself finished
      expect(record.outcome).toBe('failed');
      expect(record.failure_category).toBe('recording_failed');
      expect(record.metrics.reward).toBeUndefined();
      expect(record.facts.reward).toBeNull();
      expect(record.notes.join('\n')).toMatch(/recording: the mini-swe-agent trajectory does not parse/);
      const trajectory = record.facts.trajectory as { sha256: string; parsed: boolean; format: string };
      expect(trajectory).toMatchObject({ parsed: false, format: 'mini-swe-agent' });
      expect(existsSync(join(out, 'candidates', 'objects', trajectory.sha256))).toBe(true);
      // A failed attempt keeps its memory figure (its own cgroup's peak), with its method.
      expect(record.facts.memory_method).toBe('cgroup-peak');
      expect(record.metrics.memory_peak_bytes).toBeGreaterThan(0);
    }
    const row = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows[0]!;
    expect(row).toMatchObject({ planned: '2', completed: '0', failed: '2', failures: 'recording_failed=2', trajectories_parsed: '0' });
  }, 120_000);
});
