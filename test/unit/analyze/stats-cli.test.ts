import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-stats-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sandbench(...args: string[]) {
  return spawnSync(process.execPath, ['bin/sandbench.mjs', ...args], { cwd: process.cwd(), encoding: 'utf8', timeout: 60_000 });
}

function csv(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('sandbench stats', () => {
  it('exits 2 naming the column when a column is missing', () => {
    const file = csv('missing.csv', 'arm,ms\nA,1\nB,2\n');
    const r = sandbench('stats', file, '--value', 'wall_ms', '--arm', 'arm');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/missing\.csv: row 1 \(header\): column "wall_ms" \(--value\) not found; columns are: arm, ms/);
  });

  it('exits 2 naming row and column for a non-numeric value', () => {
    const file = csv('text.csv', 'arm,ms\nA,1\nB,2\nA,fast\n');
    const r = sandbench('stats', file, '--value', 'ms', '--arm', 'arm');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/text\.csv: row 4, column "ms": "fast" is not a number/);
  });

  it('exits 2 when a block repeats for one arm (pairing would be ambiguous)', () => {
    const file = csv('dup.csv', 'arm,round,ms\nA,1,1\nB,1,2\nA,1,3\n');
    const r = sandbench('stats', file, '--value', 'ms', '--arm', 'arm', '--block', 'round');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/row 4, column "round": block "1" already used by arm "A" on row 2/);
  });

  it('prints an aligned table and writes summary.csv and comparisons.csv', () => {
    // docker 800..804 (median 802), staged 630..636 (median 633): difference −169 in every block order.
    const lines = ['executor,round,wall_ms'];
    for (let i = 0; i < 20; i++) lines.push(`docker,${i},${800 + (i % 5)}`, `staged,${i},${630 + ((i * 3) % 7)}`);
    const file = csv('ok.csv', `${lines.join('\n')}\n`);
    const out = join(dir, 'out');
    const r = sandbench('stats', file, '--value', 'wall_ms', '--arm', 'executor', '--block', 'round', '--control', 'docker', '--out', out, '--resamples', '500');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^arm\s+n\s+failed\s+p50/m);
    expect(r.stdout).toMatch(/^staged\s+docker\s+paired blocks\s+20\s+-169\s.*candidate faster$/m);
    const comparisons = readFileSync(join(out, 'comparisons.csv'), 'utf8');
    expect(comparisons.split('\n')[1]).toMatch(/^ok\.csv,ok\.csv,stats,staged,docker,wall_ms,ms,20,-169,/);
    expect(readFileSync(join(out, 'summary.csv'), 'utf8').split('\n')).toHaveLength(4); // header, 2 arms, trailing newline
  });
});
