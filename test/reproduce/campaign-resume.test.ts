/**
 * Running a campaign: a finished bundle is skipped, a missing one runs as a real `sandbench run`
 * child (one host trial), a second invocation runs nothing; a bundle stopped mid-run is resumed
 * with `run --resume`, one killed before its plan starts again; a quick and a full campaign never
 * share a directory.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCampaignList } from '../../harness/campaign/campaign-list.ts';
import { bundleStatus, campaignEta, openCampaignState, writeCampaignState } from '../../harness/campaign/campaign-state.ts';
import { UserError } from '../../harness/errors.ts';
import { runArgs, runCampaign, runSandbenchChild, type RunChild } from '../../cli/campaign/run-campaign.ts';
import { makeSyntheticBundle } from '../reports/synthetic-bundle.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('campaign runner', () => {
  it('skips a finished bundle, runs the missing one, and runs nothing the second time', async () => {
    const dir = tempDir('sandbench-campaign-run-');
    const spec = join(dir, 'host-one.yaml');
    writeFileSync(spec, 'name: host-one\nexperiment: shell-ready\narms:\n  - backend: host\nwarmups: 0\ntrials: 3\nseed: 7\ntimeout: 30s\n');
    const list = parseCampaignList('list.yaml', {
      name: 't',
      entries: [
        { id: 'done', spec, topics: ['prepared_shell_ready'] },
        { id: 'fresh', spec, topics: ['prepared_shell_ready'], quick: { trials: 1, estimate_s: 5 } },
        { id: 'slow', spec, quick: { skip: 'too slow for a test' } },
      ],
    });
    // A campaign directory whose first entry finished in an earlier invocation.
    mkdirSync(join(dir, 'campaign'));
    writeCampaignState(join(dir, 'campaign'), openCampaignState(join(dir, 'campaign'), 'quick', list));
    const finished = makeSyntheticBundle({ experiment: 'shell-ready', arms: [{ backend: 'host', medians: { ready_ms: 1 } }], blocks: 2, dir: join(dir, 'campaign', 'done') });
    writeFileSync(join(finished, 'manifest.json'), `${JSON.stringify({ complete: true })}\n`);
    const calls: string[][] = [];
    const spy: RunChild = (args, log, onLine, bundleDir) => {
      calls.push(args);
      return runSandbenchChild(args, log, onLine, bundleDir);
    };
    const lines: string[] = [];
    const first = await runCampaign({ campaignDir: join(dir, 'campaign'), list, mode: 'quick', log: (m) => lines.push(m), runChild: spy });
    expect(calls).toEqual([['run', spec, '--out', join(dir, 'campaign', 'fresh'), '--trials', '1']]);
    expect(first.skippedFinished).toEqual(['done']);
    expect(first.state.entries.fresh).toMatchObject({ status: 'done', exit_code: 0 });
    expect(first.state.entries.slow).toMatchObject({ status: 'skipped', reason: 'skipped in --quick: too slow for a test' });
    expect(JSON.parse(readFileSync(join(dir, 'campaign', 'fresh', 'manifest.json'), 'utf8')).complete).toBe(true);
    expect(existsSync(join(dir, 'campaign', 'logs', 'fresh.log'))).toBe(true);
    expect(lines.some((l) => /^\[fresh\] \[1\/1\] .* \| campaign ETA ~/.test(l))).toBe(true);

    calls.length = 0;
    const second = await runCampaign({ campaignDir: join(dir, 'campaign'), list, mode: 'quick', log: () => undefined, runChild: spy });
    expect(calls).toEqual([]);
    expect(second.skippedFinished).toEqual(['done', 'fresh']);
    expect(() => openCampaignState(join(dir, 'campaign'), 'full', list)).toThrow(UserError);
    expect(() => openCampaignState(join(dir, 'campaign'), 'full', list)).toThrow(/holds a quick campaign; drop --quick/);
  });

  it('resumes a started bundle, restarts one stopped before its plan, and estimates the ETA from the run so far', () => {
    const dir = tempDir('sandbench-campaign-status-');
    const started = makeSyntheticBundle({ experiment: 'shell-ready', arms: [{ backend: 'host', medians: { ready_ms: 1 } }], blocks: 2, dir: join(dir, 'started') });
    expect(bundleStatus(started)).toBe('resume');
    const entry = parseCampaignList('l', { name: 't', entries: [{ id: 'started', spec: join(process.cwd(), 'experiments/specs/quick.yaml') }] }).entries[0]!;
    expect(runArgs(entry, 'quick', started, true)).toEqual(['run', '--resume', started]);
    mkdirSync(join(dir, 'early'));
    writeFileSync(join(dir, 'early', 'spec.yaml'), 'name: x\n');
    expect(bundleStatus(join(dir, 'early'))).toBe('fresh');
    expect(existsSync(join(dir, 'early'))).toBe(false);
    expect(bundleStatus(join(dir, 'never'))).toBe('fresh');
    // Two entries ran twice as long as estimated: the pending estimates double.
    expect(campaignEta({ pendingEstimates: [100, 50], currentRemaining: 20, finished: [{ actual: 60, estimate: 30 }, { actual: 20, estimate: 10 }] })).toBe(320);
    expect(campaignEta({ pendingEstimates: [100], currentRemaining: null, finished: [] })).toBe(100);
  });
});
