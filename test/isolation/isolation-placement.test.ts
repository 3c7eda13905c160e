/**
 * Fixture placement is a control (issue 20): the default scratch root is outside $HOME, every
 * placement resolves to a root of its class, the plan crosses placements with arms, and the
 * evidence keeps each placement apart (the default one under the plain arm label).
 */
import { mkdtempSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURE_ROOT, fixtureRoot, pathClass, runScratchDir, scratchRoots, stateDir } from '../../harness/state-dir.ts';
import { fixtureFilesystem } from '../../harness/provenance/fixture-filesystem.ts';
import { parseSpec } from '../../experiments/registry.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { isolationGroupOf, placementRoot } from '../../experiments/isolation/isolation-placement.ts';
import { buildIsolationPlan } from '../../experiments/isolation/isolation-plan.ts';
import { isolationEvidence } from '../../experiments/isolation/isolation-analysis.ts';
import { tempDir } from '../support/temp-dirs.ts';

const saved = { fixtures: process.env.SANDBENCH_FIXTURES, home: process.env.SANDBENCH_HOME };
afterEach(() => {
  for (const [key, value] of [['SANDBENCH_FIXTURES', saved.fixtures], ['SANDBENCH_HOME', saved.home]] as const) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe('fixture root', () => {
  it('defaults to a per-uid root outside $HOME; an explicit state dir keeps its scratch beside it', () => {
    delete process.env.SANDBENCH_FIXTURES;
    delete process.env.SANDBENCH_HOME;
    expect(fixtureRoot()).toBe(DEFAULT_FIXTURE_ROOT);
    expect(pathClass(runScratchDir(stateDir(), 'r1'))).toBe('tmp');
    expect(runScratchDir(stateDir(), 'r1').startsWith(homedir())).toBe(false);
    // Caches stay where they were: only scratch moved.
    expect(stateDir()).toBe(join(homedir(), '.cache', 'sandbench'));
    expect(scratchRoots()).toContain(join(stateDir(), 'tmp'));

    process.env.SANDBENCH_HOME = '/srv/sb';
    expect(runScratchDir(stateDir(), 'r1')).toBe('/srv/sb/tmp/sandbench-r1');
    process.env.SANDBENCH_FIXTURES = '/scratch/fx';
    expect(runScratchDir(stateDir(), 'r1')).toBe('/scratch/fx/sandbench-r1');
  });

  it('classifies paths by where they really are (symlinks resolved, missing tails allowed)', () => {
    const home = mkdtempSync(join(tmpdir(), 'sandbench-home-'));
    try {
      expect(pathClass(join(home, 'a', 'b'), home)).toBe('inside-home');
      expect(pathClass('/var/tmp/not-there/x', home)).toBe('tmp');
      expect(pathClass('/opt/sandbench-x', home)).toBe('other');
      mkdirSync(join(home, 'real'));
      const link = join(tmpdir(), `sandbench-link-${process.pid}`);
      symlinkSync(join(home, 'real'), link);
      try {
        expect(pathClass(join(link, 'fixture'), home)).toBe('inside-home');
      } finally {
        rmSync(link, { force: true });
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('resolves each placement to a root of its class, named for clean', () => {
    delete process.env.SANDBENCH_FIXTURES;
    delete process.env.SANDBENCH_HOME;
    const outside = placementRoot('outside-home', stateDir(), 'r2');
    const inside = placementRoot('inside-home', stateDir(), 'r2');
    expect(outside).toEqual({ placement: 'outside-home', root: runScratchDir(stateDir(), 'r2'), path_class: 'tmp' });
    expect(inside.path_class).toBe('inside-home');
    expect(inside.root).toBe(join(homedir(), '.cache', 'sandbench', 'tmp', 'sandbench-r2'));
    // Scratch put inside $HOME on purpose: outside-home still leaves it.
    process.env.SANDBENCH_FIXTURES = join(homedir(), '.sb-fixtures');
    expect(placementRoot('outside-home', stateDir(), 'r3')).toMatchObject({ root: join(DEFAULT_FIXTURE_ROOT, 'sandbench-r3'), path_class: 'tmp' });
    expect(placementRoot('inside-home', stateDir(), 'r3').root).toBe(join(homedir(), '.sb-fixtures', 'sandbench-r3'));
  });
});

describe('isolation placements in the plan and the evidence', () => {
  const spec = parseSpec({ name: 'x', experiment: 'isolation', arms: [{ backend: 'staged' }, { backend: 'pvisor' }], warmups: 0, trials: 3, seed: 4, timeout: '1m', isolation: { placements: ['outside-home', 'inside-home'] } });

  it('runs every arm once per placement in every block', () => {
    const plan = buildIsolationPlan(spec);
    expect(plan.trials).toHaveLength(12);
    for (let block = 0; block < 3; block++) {
      const cells = plan.trials.filter((t) => t.block === block).map((t) => `${t.arm.backend}@${t.params?.placement}`).sort();
      expect(cells).toEqual(['pvisor@inside-home', 'pvisor@outside-home', 'staged@inside-home', 'staged@outside-home']);
    }
    expect(new Set(plan.trials.map((t) => t.trial_id)).size).toBe(12);
    // Default spec: the protocol's placement only.
    const plain = buildIsolationPlan(parseSpec({ ...spec, isolation: undefined }));
    expect(new Set(plain.trials.map((t) => t.params?.placement))).toEqual(new Set(['outside-home']));
  });

  it('refuses an unknown or repeated placement naming the field', () => {
    expect(() => parseSpec({ ...spec, isolation: { placements: ['outside-home', 'in-home'] } }, 'i.yaml')).toThrow(/i\.yaml: isolation\.placements\.1: expected one of outside-home, inside-home/);
    expect(() => parseSpec({ ...spec, isolation: { placements: ['inside-home', 'inside-home'] } })).toThrow(/isolation\.placements: a placement is listed twice/);
  });

  it('keeps placements apart: the default under the arm label, the other as its own group with its path class', () => {
    const record = (trial: string, placement: string, pathClassValue: string, mutated: number): TrialRecord => ({
      run_id: 'r', schema_version: 1, experiment: 'isolation', arm: { backend: 'pvisor', variant: null }, block: 0, position: 0, trial_id: trial, warmup: false, seed: 1,
      outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null,
      metrics: { probes_reported: 13, host_outside_mutated: mutated, host_lower_mutated: mutated, workspace_staged: 1 - mutated, outside_reads: mutated * 4, host_socket_connects: mutated },
      validity: { probes_ran: 'pass', positives_work: 'pass' }, notes: [], facts: { fixture_placement: { placement, root: '/x', path_class: pathClassValue } },
    } as TrialRecord);
    const records = [record('a', 'outside-home', 'tmp', 0), record('b', 'inside-home', 'inside-home', 1)];
    expect(isolationGroupOf(records[1]!)).toEqual({ backend: 'pvisor', variant: 'inside-home' });
    const out = isolationEvidence({ resolved: { run_id: 'r', spec } as never, records });
    const row = (variant: string) => out.evidence.find((r) => r.variant === variant && r.metric === 'host-outside-mutated')!;
    expect(row('pvisor')).toMatchObject({ n: 1, value: 0 });
    expect(row('pvisor').condition).toContain('fixtures outside-home (tmp)');
    expect(row('pvisor:inside-home')).toMatchObject({ n: 1, value: 1 });
    expect(row('pvisor:inside-home').condition).toContain('fixtures inside-home (inside-home)');
  });
});

describe('isolation run with both placements (real host and staged backends)', () => {
  it('records each trial\'s placement and path class, and the run\'s fixture root outside $HOME', async () => {
    const { readFileSync, writeFileSync, existsSync } = await import('node:fs');
    const { readJournal } = await import('../../harness/journal/journal.ts');
    const { sandbench } = await import('../support/cli.ts');
    const { leftoverLines } = await import('../faults/fault-support.ts');
    const dir = tempDir('sandbench-iso-place-');
    const spec = join(dir, 'spec.yaml');
    writeFileSync(spec, 'name: iso-place\nexperiment: isolation\narms: [{ backend: host }, { backend: staged }]\nwarmups: 0\ntrials: 1\nseed: 3\ntimeout: 2m\nisolation:\n  placements: [outside-home, inside-home]\n');
    const bundle = join(dir, 'bundle');
    const run = await sandbench(['run', spec, '--out', bundle, '--require-all']);
    expect(run.code, run.stderr).toBe(0);
    const records = readJournal(join(bundle, 'journal.jsonl')).records;
    expect(records).toHaveLength(4);
    for (const record of records) {
      expect(record.outcome, record.notes.join(' | ')).toBe('ok');
      const placement = record.facts.fixture_placement as { placement: string; root: string; path_class: string };
      expect(placement.placement).toBe(record.trial_id.endsWith('inside-home') ? 'inside-home' : 'outside-home');
      expect(placement.path_class).toBe(placement.placement === 'inside-home' ? 'inside-home' : 'tmp');
      expect(existsSync(placement.root), `${placement.root} removed after the run`).toBe(false);
    }
    // The staged sandbox stays closed wherever its fixtures are; the host floor reaches them both.
    for (const record of records) expect(record.metrics.host_outside_mutated).toBe(record.arm.backend === 'host' ? 1 : 0);
    const environment = JSON.parse(readFileSync(join(bundle, 'environment.json'), 'utf8'));
    expect(environment.fixtures.path_class).not.toBe('inside-home');
    // The filesystem under the scratch root is a control of the harness's own CPU: recorded as the mount that holds it.
    expect(environment.fixtures.filesystem).toEqual(fixtureFilesystem(environment.fixtures.root));
    expect(environment.fixtures.filesystem.type).not.toBe('unknown');
    const evidence = readFileSync(join(bundle, 'evidence.csv'), 'utf8');
    expect(evidence).toContain('staged:inside-home');
    const runId = JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8')).run_id as string;
    expect(await leftoverLines(runId)).toEqual([]);
  }, 240_000);
});
