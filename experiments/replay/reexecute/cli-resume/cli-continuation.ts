/**
 * Mode `continue` through a real CLI's native resume (issue 19, `replay.continue_with: codex |
 * claude`, resume-clis.ts): after the replay, the agent layer's CLI resumes a session seeded from the
 * replayed prefix (codex-resume.sh / claude-resume.sh) and continues against the scripted model
 * service, which answers the next turn with the trajectory's future action and then the final text
 * (continuation.ts's script: the same turns the built-in continuation gets, as calls of the CLI's
 * own shell tool).
 *
 * Judged per trial, from the model journal and the recorded body of the first continuation request
 * (the service keeps bodies for this run: request-bodies.ts):
 *   - continuation_saw: did the CLI send the REPLAYED output of the fresh-marked call, or the
 *     historical text (the same field the built-in continuation records);
 *   - continuation_prefix_calls_sent / _whole_prefix: the request carried every prefix call with
 *     its result, in order, and the prompt (turn count = its tool results);
 *   - the scripted requests (effects: turns 7 and 8), the marker the future action writes from the
 *     replayed state (builtin-fix: the task's evaluator scores it, continue-reward.ts), first_continuation_request_ms (launch → first request) and continuation_first_request_ms
 *     (CONTINUE_START → first request), continuation_seed_ms (CONTINUE_START → SEEDED_SESSION: the
 *     bridge's own cost).
 * A CLI that refuses the seeded session (exits without reaching the model) is `setup_failed`
 * with its own message (`continuation_failure: session_refused`), never a crash.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_MOUNT_ROOT, type OutputLine, type RunningTrial, type SandboxMount, type TaskCommand } from '../../../../harness/contracts/executor.ts';
import type { FailureCategory } from '../../../../harness/journal/trial-record.ts';
import { PROJECT_ROOT } from '../../../../harness/state-dir.ts';
import { MODEL_ENDPOINT_FILES, readModelJournal, readRequestBodies, summarizeAttempts } from '../../../../services/model/index.ts';
import { CODEX_CONFIG_SCRIPT } from '../../../agent/agent-kind.ts';
import type { AgentLayer } from '../../../agent/layers.ts';
import { continuationJudge, continueTaskId } from '../continuation.ts';
import { normalizeObservation } from '../fidelity.ts';
import type { PrefixInput } from '../replay-inputs.ts';
import type { ContinuationJudge, DriverReport } from '../replay-only-trial.ts';
import type { ResumeCli, SessionTemplate } from './resume-clis.ts';

const HERE = join(PROJECT_ROOT, 'experiments', 'replay', 'reexecute');
const sources = (cli: ResumeCli) => ({
  [cli.entry]: join(HERE, 'cli-resume', cli.entry),
  [cli.seeder]: join(HERE, 'cli-resume', cli.seeder),
  'seed_common.py': join(HERE, 'cli-resume', 'seed_common.py'),
  'replay-driver.py': join(HERE, 'replay-driver.py'),
  'codex-config.sh': CODEX_CONFIG_SCRIPT,
  ...MODEL_ENDPOINT_FILES,
});
export const RESUME_SUPPORT_TARGET = `${SANDBOX_MOUNT_ROOT}/cli-resume`;
export const RESUME_LAYER_TARGET = `${SANDBOX_MOUNT_ROOT}/agent`;
/** The body sidecar of the run's model journal (in the bundle, so the verdicts can be re-derived). */
export const REQUEST_BODIES_FILE = join('replay', 'model-requests.jsonl');

export interface ResumeSupport {
  cli: ResumeCli;
  mount: SandboxMount;
  layerMount: SandboxMount;
  layer: AgentLayer;
  templates: Map<string, { template: SessionTemplate; target: string }>;
}

/** One read-only directory per run: the entry script, the seeder, the driver, the forwarder and one template per trajectory. */
export function buildResumeSupport(dir: string, inputs: Iterable<PrefixInput>, layer: AgentLayer, cli: ResumeCli): ResumeSupport {
  mkdirSync(join(dir, 'templates'), { recursive: true });
  const key = createHash('sha256');
  for (const [name, source] of Object.entries(sources(cli))) {
    copyFileSync(source, join(dir, name));
    key.update(`${name}\0`).update(readFileSync(source));
  }
  chmodSync(join(dir, cli.entry), 0o755);
  const templates: ResumeSupport['templates'] = new Map();
  for (const input of inputs) {
    const template = cli.template(input.entry, layer.agent.version);
    const name = `${input.entry.agent}-task-${input.entry.index}.json`;
    const text = `${JSON.stringify(template, null, 2)}\n`;
    writeFileSync(join(dir, 'templates', name), text);
    key.update(`${name}\0${text}`);
    templates.set(`${input.entry.agent}/${input.entry.index}`, { template, target: `${RESUME_SUPPORT_TARGET}/templates/${name}` });
  }
  return {
    cli,
    mount: { source: dir, target: RESUME_SUPPORT_TARGET, contentKey: `${cli.name}-resume-${key.digest('hex').slice(0, 16)}` },
    layerMount: { source: layer.dir, target: RESUME_LAYER_TARGET, contentKey: layer.contentKey },
    layer,
    templates,
  };
}

export function resumeTask(support: ResumeSupport, input: PrefixInput, replayMount: SandboxMount, route: string, service: TaskCommand['service']): TaskCommand {
  const template = support.templates.get(`${input.entry.agent}/${input.entry.index}`)!;
  return {
    argv: ['/bin/sh', `${RESUME_SUPPORT_TARGET}/${support.cli.entry}`, input.callsTarget, template.target],
    env: { SANDBENCH_MODEL_ROUTE: route, SANDBENCH_AGENT_LAYER: RESUME_LAYER_TARGET },
    stdin: 'none',
    mounts: [replayMount, support.mount, support.layerMount],
    service,
  };
}

/** The CLI's own words: its stderr after the replay ended, without sandbench's markers. */
function cliMessage(lines: readonly OutputLine[]): string {
  const start = lines.findIndex((l) => l.stream === 'stdout' && l.text.trim() === 'CONTINUE_START');
  const after = lines.slice(start + 1).filter((l) => l.stream === 'stderr' && !l.text.startsWith('SANDBENCH_CLI_EXIT') && l.text.trim() !== '');
  // codex prints `Error: …` and then a stack backtrace of `<unknown>` frames: the error line is the message
  // (Claude Code: `No conversation found with session ID: …`)
  const errors = after.filter((l) => /^(Error\b|SANDBENCH_SEED_ERROR\b|No conversation found)/.test(l.text));
  return (errors.length > 0 ? errors : after.slice(-4)).map((l) => l.text.slice(0, 1500)).join(' | ') || 'no message on stderr';
}

export function cliContinuationJudge(input: PrefixInput, support: ResumeSupport, journalPath: string, bodiesPath: string, attempt: string): ContinuationJudge {
  const template = support.templates.get(`${input.entry.agent}/${input.entry.index}`)!.template;
  const base = continuationJudge(input, journalPath, attempt);
  const traffic = () => summarizeAttempts(readModelJournal(journalPath).entries).find((t) => t.attempt === attempt) ?? null;
  const name = support.cli.name;
  const agentFacts = { continuation_agent: `${name} ${support.layer.agent.version} (native resume)`, continuation_agent_reported_version: support.layer.meta.reported_version, continuation_session_bridge: `${template.bridged_from.format} ${template.bridged_from.modelled_version} → ${template.bridged_from.canonical_schema} → ${name} ${template.cli_version} session` };
  return {
    expected: base.expected,
    failedExit(exitCode: number | null, lines: readonly OutputLine[]): { category: FailureCategory; notes: string[]; facts: Record<string, unknown> } | null {
      const seen = traffic();
      if (exitCode === 98) return { category: 'setup_failed', notes: [`seeding ${name}'s session store failed: ${cliMessage(lines)}`], facts: { ...agentFacts, continuation_failure: 'session_seed_failed' } };
      if (exitCode !== 2) return null;
      if (!seen || seen.firstGenerationNs === null) return { category: 'setup_failed', notes: [`${name} refused the seeded session (no request reached the model service): ${cliMessage(lines)}`], facts: { ...agentFacts, continuation_failure: 'session_refused' } };
      return { category: 'task_failed', notes: [`${name} failed after ${seen.generations} continuation request(s): ${cliMessage(lines)}`], facts: { ...agentFacts, continuation_failure: 'cli_failed' } };
    },
    async judge(lines: readonly OutputLine[], running: RunningTrial, _candidates, report: DriverReport) {
      const start = lines.find((l) => l.stream === 'stdout' && l.text.trim() === 'CONTINUE_START');
      const seededLine = lines.find((l) => l.stream === 'stdout' && l.text.startsWith('SEEDED_SESSION '));
      const seeded = seededLine?.text.slice('SEEDED_SESSION '.length).trim() ?? null;
      const seen = traffic();
      const bodies = readRequestBodies(bodiesPath).filter((b) => b.attempt === attempt).sort((a, b) => a.seq - b.seq);
      const prompt = input.entry.task.userText;
      const first = bodies.map((b) => ({ seq: b.seq, sent: support.cli.sentPrefix(b.body, template.calls, prompt) })).find((b) => b.sent.toolResults > 0) ?? null;
      const freshIndex = input.calls.findIndex((c) => c.fresh);
      const fresh = freshIndex >= 0 ? input.calls[freshIndex]! : null;
      const replayedFresh = report.calls[freshIndex]?.output ?? null;
      const sent = fresh && first ? first.sent.outputs.get(fresh.id)?.output ?? null : null;
      const saw =
        sent === null || replayedFresh === null || fresh === null ? 'unknown'
        : normalizeObservation(sent) === normalizeObservation(replayedFresh) && normalizeObservation(sent) !== normalizeObservation(fresh.observation) ? 'replayed'
        : normalizeObservation(sent) === normalizeObservation(fresh.observation) ? 'historical' : 'unknown';
      // every other prefix call: the CLI sent back exactly what the replay produced
      const otherMismatches = first ? input.calls.filter((c, k) => !c.fresh && normalizeObservation(first.sent.outputs.get(c.id)?.output ?? '\0') !== normalizeObservation(report.calls[k]?.output ?? '')).map((c) => c.id) : [];
      const whole = first !== null && first.sent.prefixCallsSent === input.calls.length && first.sent.promptSent;
      const turns = seen?.turnsAnswered ?? [];
      // effects: the future action and the final text; builtin-fix: the rest of its seeded path (continuation.ts)
      const continuationTurns = input.entry.task.fix?.continuation.length ?? 2;
      const scripted = seen !== null && seen.generations === continuationTurns && turns.join(',') === Array.from({ length: continuationTurns }, (_, k) => input.calls.length + k).join(',');
      const metrics: Record<string, number> = {};
      if (seen?.firstGenerationNs != null) metrics.first_continuation_request_ms = Number(seen.firstGenerationNs - running.tSpawnNs) / 1e6;
      if (seen?.firstGenerationNs != null && start) metrics.continuation_first_request_ms = Number(seen.firstGenerationNs - start.tNs) / 1e6;
      const exit = await running.exit;
      if (start) metrics.continuation_ms = Number(exit.tExitNs - start.tNs) / 1e6;
      // the bridge's own cost: end of replay → session seeded (forwarder where needed, config, seeder)
      if (start && seededLine) metrics.continuation_seed_ms = Number(seededLine.tNs - start.tNs) / 1e6;
      if (first) metrics.continuation_prefix_calls_sent = first.sent.prefixCallsSent;
      const notes: string[] = [];
      if (!scripted) notes.push(`continuation traffic: ${seen ? `${seen.generations} generation(s), turns ${JSON.stringify(turns)}` : 'no request reached the model service'}`);
      if (!first) notes.push(`no recorded continuation request body with tool results for attempt ${attempt} (${bodies.length} bodies)`);
      else if (!whole) notes.push(`the first continuation request carried ${first.sent.prefixCallsSent}/${input.calls.length} prefix calls in order${first.sent.promptSent ? '' : ', without the prompt'}`);
      if (otherMismatches.length > 0) notes.push(`${name} sent outputs other than the replayed ones for ${otherMismatches.join(', ')}`);
      return {
        validity: {
          continuation_start_once: lines.filter((l) => l.stream === 'stdout' && l.text.trim() === 'CONTINUE_START').length === 1 ? 'pass' : 'fail',
          continuation_scripted_requests: scripted ? 'pass' : 'fail',
          continuation_whole_prefix: whole && otherMismatches.length === 0 ? 'pass' : 'fail',
          continuation_saw_replayed: saw === 'replayed' ? 'pass' : 'fail',
        },
        metrics,
        facts: {
          ...agentFacts,
          continuation_task: continueTaskId(input),
          continuation_session_id: seeded,
          continuation_saw: saw,
          continuation_turns_answered: turns,
          continuation_requests: seen?.requests ?? 0,
          continuation_first_request_seq: first?.seq ?? null,
          continuation_first_request_tool_results: first?.sent.toolResults ?? null,
          continuation_prefix_calls_sent: first?.sent.prefixCallsSent ?? null,
          continuation_prefix_calls: input.calls.length,
          continuation_whole_prefix: whole,
          // codex wraps each result in its unified-exec envelope; Claude Code sends the output as is
          continuation_outputs_enveloped: first && name === 'codex' ? [...first.sent.outputs.values()].every((o) => o.enveloped) : null,
          continuation_dropped_messages: template.dropped,
          ...(input.entry.task.fix ? {} : { continuation_reward: 'no rollout evaluator for the effects task: the marker is checked against the ground truth instead' }),
        },
        notes,
      };
    },
  };
}
