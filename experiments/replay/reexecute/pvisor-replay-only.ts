/**
 * pvisor-replay `--replay-only` as the second replay-only subject (issue 19). pvisor-replay 0.3.1
 * re-executes the prefix itself, directly in the workspace it is given (no sandbox of its own unless
 * `--executor` asks for pVisor's outer Run), so its arm is a host process: a fresh copy of the
 * trajectory's baseline per attempt, timed launch to exit. It refuses to replay without the exact
 * agent release the format pins (`--agent-entrypoint`, checked with `--version`), so an agent is a
 * pvisor arm only where the spec names that executable. Its fidelity is judged the same way as
 * sandbench's (fidelity.ts, on the replayed observations of the native trajectory it reconstructs);
 * pVisor's own byte-exact verdicts are kept beside ours in facts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CandidateFiles } from '../../../harness/contracts/executor.ts';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';
import { affinityArgv } from '../../../harness/controls/cpu-affinity.ts';
import { copyWorkspace, diffWorkspaces, treeDigest } from '../../../executors/workspace-diff.ts';
import { spawnTrial } from '../../../executors/spawn-trial.ts';
import { PARSERS } from '../parse/index.ts';
import { baselineFiles } from '../fixture-task.ts';
import { checkEffects, outsideEntries, trialDirEntries } from './effects-check.ts';
import { callFidelity, fidelityCounts } from './fidelity.ts';
import type { PrefixInput } from './replay-inputs.ts';

interface PvisorResult {
  failure?: { category?: string; message?: string } | null;
  replayed_tool_calls?: number;
  phase?: string | null;
  quality?: string | null;
  output_dir?: string;
  artifacts?: { role: string; path: string }[];
}

function resultDocument(stdout: readonly string[]): PvisorResult | null {
  for (const line of stdout) {
    try {
      const doc = JSON.parse(line) as unknown;
      if (doc && typeof doc === 'object' && 'schema_version' in doc) return doc as PvisorResult;
    } catch {
      // not the result line
    }
  }
  return null;
}

/** Per-call durations (ms, integer in 0.3.1) from the `tool_finished` events of replay-events.jsonl. */
function toolDurations(path: string | undefined): Map<string, number> {
  const durations = new Map<string, number>();
  if (!path || !existsSync(path)) return durations;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.includes('"tool_finished"')) continue;
    const payload = (JSON.parse(line) as { event?: { data?: { payload?: { call_id?: string; duration_ms?: number } } } }).event?.data?.payload;
    if (payload?.call_id && typeof payload.duration_ms === 'number') durations.set(payload.call_id, payload.duration_ms);
  }
  return durations;
}

export async function runPvisorReplayOnly(ctx: ExperimentContext, record: TrialRecord, input: PrefixInput, command: string, entrypoint: string, attemptDir: string): Promise<TrialRecord> {
  const { entry } = input;
  const workspace = join(attemptDir, 'workspace');
  const facts: Record<string, unknown> = { ...record.facts, mode: 'replay-only', subject: 'pvisor-replay', subject_command: command, agent_entrypoint: entrypoint, replay_calls_planned: input.calls.length };
  await rm(attemptDir, { recursive: true, force: true });
  await mkdir(join(attemptDir, 'state'), { recursive: true });
  try {
    const prepareStart = process.hrtime.bigint();
    await copyWorkspace(entry.workspace, workspace);
    const prepareMs = Number(process.hrtime.bigint() - prepareStart) / 1e6;
    const baselineBefore = treeDigest(entry.workspace);
    const besideBefore = trialDirEntries(attemptDir);
    const cpus = ctx.spec.controls.cpus;
    const argv = [
      ...(cpus ? affinityArgv(cpus) : []),
      command, '--agent', entry.agent, '--trajectory', entry.path, '--after-step', String(entry.task.prefixTurns), '--replay-only',
      '--agent-entrypoint', entrypoint, '--workspace', workspace, '--state-dir', join(attemptDir, 'state'), '--output-dir', join(attemptDir, 'out'),
    ];
    facts.argv = argv;
    const running = spawnTrial({ argv, cwd: workspace, stdin: 'none', timeoutMs: ctx.spec.timeout });
    const exit = await running.exit;
    const completionMs = Number(exit.tExitNs - running.tSpawnNs) / 1e6;
    const outside = outsideEntries(besideBefore, trialDirEntries(attemptDir)).filter((name) => name !== 'out');
    const stdout = running.lines.filter((l) => l.stream === 'stdout').map((l) => l.text);
    const result = resultDocument(stdout);
    const timed = { exit_code: exit.exitCode, t_spawn_ns: running.tSpawnNs.toString(), completion_ms: completionMs };
    if (exit.timedOut) return { ...record, ...timed, completion_ms: null, outcome: 'failed', failure_category: 'timeout', metrics: { prepare_ms: prepareMs }, notes: ['pvisor-replay exceeded the spec timeout'], facts };
    if (exit.exitCode !== 0 || !result || result.failure) {
      const category = result?.failure?.category ?? null;
      return {
        ...record, ...timed, outcome: 'failed', failure_category: category === 'unsupported_version' || category === 'configuration_error' ? 'setup_failed' : 'task_failed',
        metrics: { prepare_ms: prepareMs }, notes: [`pvisor-replay exited ${exit.exitCode ?? exit.signal}${category ? ` (${category}: ${result?.failure?.message ?? ''})` : ''}`],
        facts: { ...facts, replay_failure_category: category },
      };
    }
    const artifact = (role: string) => result.artifacts?.find((a) => a.role === role)?.path;
    const reconstructedPath = artifact('reconstructed_native_trajectory');
    const replayed = reconstructedPath ? PARSERS[entry.agent](readFileSync(reconstructedPath, 'utf8')).messages.flatMap((m) => (m.role === 'tool' ? [m] : [])) : [];
    const byId = new Map(replayed.map((m) => [m.call_id, m]));
    const durations = toolDurations(artifact('replay_events'));
    const fidelity = input.calls.map((call, k) => {
      const got = byId.get(call.id);
      return callFidelity(k, call, { exitCode: got?.exit_code ?? call.exitCode ?? 0, output: got?.output ?? '', durationMs: durations.get(call.id) ?? NaN });
    });
    const pvisorExact = (() => {
      const path = artifact('observation_comparison');
      return path && existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as { call_id: string; exact: boolean }[]).map((c) => c.exact) : null;
    })();
    const changed = await diffWorkspaces(entry.workspace, workspace);
    const candidates: CandidateFiles = { changed, read: async (p) => (existsSync(join(workspace, p)) ? readFileSync(join(workspace, p)) : null), facts: {} };
    const effects = entry.task.effects ? await checkEffects(candidates, entry.task.effects, baselineFiles(entry.task.userText)) : null;
    const counts = fidelityCounts(fidelity);
    const callsComplete = replayed.length >= input.calls.length && input.calls.every((c) => byId.has(c.id)) && result.replayed_tool_calls === input.calls.length;
    const validity: Record<string, 'pass' | 'fail'> = {
      one_result: 'pass',
      calls_replayed_in_order: callsComplete ? 'pass' : 'fail',
      host_baseline_unchanged: treeDigest(entry.workspace) === baselineBefore ? 'pass' : 'fail',
      no_effects_outside_workspace: outside.length === 0 ? 'pass' : 'fail',
      workspace_exact_effects: effects === null || effects.exact ? 'pass' : 'fail',
      no_unexpected_differences: counts['differs-unexpected'] === 0 ? 'pass' : 'fail',
    };
    const failed = Object.entries(validity).filter(([, v]) => v === 'fail').map(([k]) => k);
    const metrics: Record<string, number> = { completion_ms: completionMs, prepare_ms: prepareMs };
    if (callsComplete && fidelity.every((_, k) => Number.isFinite(durations.get(input.calls[k]!.id)))) {
      const each = input.calls.map((c) => durations.get(c.id)!);
      metrics.replay_ms = each.reduce((a, b) => a + b, 0);
      metrics.per_call_ms = metrics.replay_ms / each.length;
      each.forEach((ms, k) => (metrics[`call_${k}_ms`] = ms));
    }
    const boundary = validity.host_baseline_unchanged === 'fail' || validity.no_effects_outside_workspace === 'fail';
    return {
      ...record, ...timed,
      outcome: failed.length === 0 ? 'ok' : 'invalid',
      failure_category: failed.length === 0 ? null : boundary ? 'isolation_refused' : validity.calls_replayed_in_order === 'fail' ? 'recording_failed' : 'task_failed',
      metrics, validity,
      notes: failed.length === 0 ? [] : [`failed: ${failed.join(', ')}`, ...(effects && !effects.exact ? [`effects: unexpected ${JSON.stringify(effects.unexpected)} missing ${JSON.stringify(effects.missing)}`] : [])],
      facts: {
        ...facts,
        fidelity_identical: counts.identical,
        fidelity_differs_expected: counts['differs-expected'],
        fidelity_differs_unexpected: counts['differs-unexpected'],
        calls: fidelity.map((f, k) => ({ ...f, command: input.calls[k]!.command, fresh: input.calls[k]!.fresh, duration_ms: durations.get(input.calls[k]!.id) ?? null })),
        pvisor_exact: pvisorExact,
        pvisor_phase: result.phase ?? null,
        pvisor_quality: result.quality ?? null,
        duration_resolution: 'integer ms (pvisor-replay 0.3.1 replay-events)',
        candidate_files: changed,
        outside_entries: outside,
        ...(boundary ? { replay_failure_category: 'boundary' } : {}),
      },
    };
  } finally {
    await rm(attemptDir, { recursive: true, force: true });
  }
}
