/**
 * `sandbench capacity` end to end on the host backend in a deliberately small budget (80 MiB for
 * workers touching 24 MiB each), so the bracket has both ends within a few fast batches: the
 * command prints it with the batches that decided it, journals every batch and leaves nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import type { CapacityReport } from '../../experiments/density/capacity-run.ts';
import { sandbench } from '../support/cli.ts';
import { leftoverLines } from '../faults/fault-support.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('sandbench capacity', () => {
  it('brackets the largest passing N on a real budget and names the deciding batches', async () => {
    const dir = tempDir('sandbench-capacity-');
    const spec = join(dir, 'density.yaml');
    writeFileSync(spec, `name: cap-test
experiment: density
arms: [{ backend: host }]
warmups: 0
trials: 1
seed: 7
timeout: 120s
density: { workloads: [useful], concurrency: [1], batches: 1, budget_cpus: "0-1", budget_memory: 80MiB, payload_mib: 24, ready_timeout: 60s }
`);
    const out = join(dir, 'out');
    const run = await sandbench(['capacity', spec, '--backend', 'host', '--from', '1', '--to', '8', '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'capacity.json'), 'utf8')) as CapacityReport;
    const { largest_passing: low, smallest_failing: high } = report.bracket;
    expect(low).not.toBeNull();
    expect(high).not.toBeNull();
    expect(high).toBe(low! + 1);
    // 80 MiB cannot hold 8 workers touching 24 MiB each; one always fits.
    expect(low!).toBeGreaterThanOrEqual(1);
    expect(high!).toBeLessThanOrEqual(8);
    expect(report.decided_by.largest_passing.every((b) => b.outcome === 'ok' && b.concurrency === low)).toBe(true);
    expect(report.decided_by.smallest_failing.some((b) => b.outcome !== 'ok' && b.concurrency === high)).toBe(true);
    expect(run.stdout).toContain(`capacity host useful: largest passing N = ${low}; smallest failing N = ${high}`);
    expect(run.stdout).toMatch(/decided the upper end \(N=\d+\):\n {4}s\d{3}-b0-host-useful: failed\//);
    const journal = readJournal(join(out, 'journal.jsonl')).records;
    expect(journal.length).toBe(report.bracket.probes.reduce((sum, p) => sum + p.batches_run, 0));
    expect(journal.every((r) => r.facts.capacity_search === true)).toBe(true);
    expect(await leftoverLines(report.run_id)).toEqual([]);
  }, 300_000);

  it('refuses a spec of another kind and a bad range, naming the fix', async () => {
    const kind = await sandbench(['capacity', 'experiments/specs/isolation.yaml', '--backend', 'host']);
    expect(kind.code).toBe(2);
    expect(kind.stderr).toContain('capacity needs a density spec');
    const range = await sandbench(['capacity', 'experiments/specs/density.yaml', '--backend', 'host', '--from', '9', '--to', '4']);
    expect(range.code).toBe(2);
    expect(range.stderr).toContain('--from 9 --to 4: need whole numbers with 1 <= from <= to');
  }, 120_000);
});
