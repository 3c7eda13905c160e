/**
 * The campaign join's reasons and arm choices: a row only --quick leaves out says what --quick ran
 * (from the shipped list's quick/full overrides), pVisor's published rows join pVisor measured here
 * when the bundle has the pvisor arm, and replay's prefix-check counts join (a real replay bundle).
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { DEFAULT_CAMPAIGN_LIST, readCampaignList } from '../../harness/campaign/campaign-list.ts';
import { modeReduction, specBasics } from '../../harness/campaign/mode-reduction.ts';
import { kindCatalog } from '../../cli/kinds.ts';
import { DEFAULT_PUBLISHED, mappingPathFor, readMapping, readPublished } from '../../reports/reproduce/published.ts';
import { explainReduction, joinCampaign } from '../../reports/reproduce/campaign-join.ts';
import { makeSyntheticBundle } from '../reports/synthetic-bundle.ts';

const kinds = await kindCatalog();
const published = readPublished(DEFAULT_PUBLISHED);
const mapping = readMapping(mappingPathFor(DEFAULT_PUBLISHED));
const list = readCampaignList(DEFAULT_CAMPAIGN_LIST);
const entry = (id: string) => list.entries.find((e) => e.id === id)!;

describe('campaign reasons', () => {
  it('says what --quick left out: trials, cells, arms; the full campaign reduces nothing', () => {
    const repair = modeReduction(entry('repair'), 'quick')!;
    expect(repair.trials).toEqual({ ran: 5, full: 60 });
    expect(repair.arms?.full).toEqual(expect.arrayContaining(['qemu-microvm', 'qemu-q35']));
    expect(modeReduction(entry('repair'), 'full')).toBeNull();
    const density = modeReduction(entry('density'), 'quick')!;
    expect(density.concurrency).toEqual({ ran: [16, 32], full: [16, 32, 64, 128] });

    expect(explainReduction('our n = 5 < 30: no P95 reported', repair)).toBe('our n = 5 < 30: no P95 reported — --quick runs 5 trials per arm (the full campaign 60)');
    expect(explainReduction('density cell useful N=64 was not run for host', density)).toBe('density cell useful N=64 was not run for host — --quick runs N = 16, 32 with 1 batch(es) per cell; the full campaign N = 16, 32, 64, 128');
    expect(explainReduction('density cell useful N=16 was not run for docker', density)).toBe('density cell useful N=16 was not run for docker');
    expect(explainReduction('arm qemu-microvm not in this bundle (arms: host, staged, podman, docker)', repair)).toMatch(/ — --quick drops qemu-microvm \(runs host, staged, podman, docker\); the full campaign runs it$/);
    // An arm no mode runs keeps its plain reason.
    expect(explainReduction('arm pvisor:vm not in this bundle (arms: host, staged)', repair)).toBe('arm pvisor:vm not in this bundle (arms: host, staged)');
    const replay = modeReduction(entry('replay'), 'quick')!;
    expect(explainReduction('our n = 12 < 30: no P95 reported', replay)).toMatch(/— --quick runs experiments\/specs\/campaign-replay-quick\.yaml \(the full campaign experiments\/specs\/replay\.yaml\)$/);
  });

  it('an arm absent from one bundle names the entry that runs it when that entry has no bundle', () => {
    const agent = makeSyntheticBundle({
      experiment: 'agent', seed: 622, blocks: 6,
      arms: [
        { backend: 'host', variant: 'codex', medians: { completion_ms: 1900 } },
        { backend: 'staged', variant: 'codex', medians: { completion_ms: 2100 } },
      ],
    });
    const vm = entry('agent-cli-vm');
    const result = joinCampaign(
      [
        { entry: 'agent-cli', topics: ['cli_compatibility'], bundle: analyzeBundle(agent, kinds, { write: false }), arms: specBasics(entry('agent-cli').specPaths.quick).arms },
        { entry: 'agent-cli-vm', topics: ['cli_compatibility'], bundle: null, missingReason: `skipped in --quick: ${vm.quick.skip}`, arms: specBasics(vm.specPaths.quick).arms },
      ],
      published,
      mapping,
    );
    const why = (backend: string) => result.unmatched.find((u) => u.published.topic === 'cli_compatibility' && u.published.backend === backend)?.reason;
    expect(why('qemu/codex')).toMatch(/^arm qemu-q35:codex not in this bundle .*; its entry has no bundle: agent-cli-vm: skipped in --quick: /);
    // docker:codex is in agent-cli's own spec, not agent-cli-vm's: no entry to name.
    expect(why('docker/codex')).toMatch(/^arm docker:codex not in this bundle \(arms: [^)]*\)$/);
  });

  it('joins pVisor rows with the pvisor arm when the bundle has it, and replay prefix checks with pvisor-replay', () => {
    const shell = makeSyntheticBundle({
      experiment: 'shell-ready', seed: 621, blocks: 6,
      arms: [
        { backend: 'host', medians: { ready_ms: 1, completion_ms: 2 } },
        { backend: 'staged', medians: { ready_ms: 9, completion_ms: 12 } },
        { backend: 'docker', medians: { ready_ms: 300, completion_ms: 400 } },
        { backend: 'pvisor', medians: { ready_ms: 200, completion_ms: 260 } },
      ],
    });
    const replay = analyzeBundle(resolve(import.meta.dirname, '../fixtures/bundles/replay'), kinds, { write: false });
    const result = joinCampaign(
      [
        { entry: 'shell-ready', topics: ['prepared_shell_ready'], bundle: analyzeBundle(shell, kinds, { write: false }), reduction: modeReduction(entry('shell-ready'), 'quick') },
        { entry: 'replay', topics: ['replay_prefix'], bundle: replay },
      ],
      published,
      mapping,
    );
    const match = (topic: string, backend: string, statistic: string) => result.matched.find((m) => m.published.topic === topic && m.published.backend === backend && m.published.statistic === statistic);
    expect(match('prepared_shell_ready', 'pvisor-staged', 'ready_ms_P50')).toMatchObject({ variant: 'pvisor', reference: 'docker' });
    expect(result.unmatched.find((u) => u.published.topic === 'prepared_shell_ready' && u.published.backend === 'pvisor-host')?.reason).toMatch(/always stages/);
    expect(result.orderings.find((o) => o.id === 'shell-staged-lt-docker')?.reason).toMatch(/^docker \/ pvisor ratio/);
    // The replay fixture holds codex and claude-code for both subjects (3 prefixes × 2 reps).
    expect(match('replay_prefix', 'codex/0.149.0/native-responses-jsonl-v1', 'passed_prefix_checks')).toMatchObject({ variant: 'pvisor-replay:codex', ours: { n: 6, value: 6 } });
    expect(result.unmatched.find((u) => u.published.topic === 'replay_prefix' && u.published.statistic === 'passed_prefix_checks' && u.published.backend.startsWith('opencode'))?.reason).toMatch(/arm pvisor-replay:opencode or sandbench:opencode not in this bundle/);
  });
});
