/**
 * Reads what a subject left behind after one prepare attempt (stdout result documents, manifest,
 * prefix files) and normalizes it into AttemptEvidence for the audit. Every file is parsed with zod
 * at this edge; anything missing or malformed becomes a `problem`, never an exception.
 */
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { z } from 'zod';
import type { ReplayAgent } from './agents.ts';
import type { AttemptEvidence } from './audit.ts';
import { PARSERS } from './parse/index.ts';
import { MANIFEST_FILE, PREFIX_FILE, PrepareResultSchema, RESULT_SCHEMA, ReplayManifestSchema } from './prepare-manifest.ts';
import { createHash } from 'node:crypto';

function jsonDocuments(stdoutLines: readonly string[]): Record<string, unknown>[] {
  const docs: Record<string, unknown>[] = [];
  for (const line of stdoutLines) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) docs.push(value as Record<string, unknown>);
    } catch {
      // not a result document
    }
  }
  return docs;
}

async function readText(path: string, problems: string[], label: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    problems.push(`${label} ${path} unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    return null;
  }
}

function parseWith<S extends z.ZodType>(schema: S, text: string | null, problems: string[], label: string): z.output<S> | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    problems.push(`${label} is not valid JSON`);
    return null;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  problems.push(`${label}.${issue.path.join('.')}: ${issue.message}`);
  return null;
}

const emptyEvidence = (resultCount: number, problems: string[]): AttemptEvidence => ({
  resultCount,
  failure: null,
  replayedToolCalls: null,
  afterStep: null,
  boundaryToolCalls: null,
  keptCommands: [],
  keptObservations: [],
  keptExitCodes: [],
  writtenTexts: [],
  sourceSha256: null,
  problems,
});

export async function sandbenchEvidence(stdoutLines: readonly string[], outputDir: string): Promise<AttemptEvidence> {
  const problems: string[] = [];
  const results = jsonDocuments(stdoutLines).filter((doc) => doc.schema === RESULT_SCHEMA);
  const evidence = emptyEvidence(results.length, problems);
  const result = results.length === 1 ? PrepareResultSchema.safeParse(results[0]) : null;
  if (result && !result.success) problems.push(`result line: ${result.error.issues[0]!.message}`);
  const manifestText = await readText(join(outputDir, MANIFEST_FILE), problems, 'manifest');
  const manifest = parseWith(ReplayManifestSchema, manifestText, problems, 'manifest');
  const prefixText = await readText(join(outputDir, PREFIX_FILE), problems, 'prefix');
  if (!manifest) return evidence;
  if (prefixText !== null && createHash('sha256').update(prefixText).digest('hex') !== manifest.prefix.sha256) problems.push('prefix file sha256 differs from manifest.prefix.sha256');
  return {
    ...evidence,
    failure: result?.success ? result.data.failure : null,
    replayedToolCalls: result?.success && result.data.replayed_tool_calls !== manifest.replayed_tool_calls ? null : manifest.replayed_tool_calls,
    afterStep: manifest.boundary.after_step,
    boundaryToolCalls: manifest.boundary.tool_calls,
    keptCommands: manifest.kept_calls.map((call) => (call.kind === 'shell' ? call.command : JSON.stringify(call.arguments))),
    keptObservations: manifest.kept_observations.map((o) => o.output),
    keptExitCodes: manifest.kept_observations.map((o) => o.exit_code),
    writtenTexts: [manifestText!, ...(prefixText === null ? [] : [prefixText])],
    sourceSha256: manifest.source.sha256,
  };
}

// pvisor-replay 0.3.1 documents (schema versions as printed by the binary).
const PvisorResult = z.object({
  schema_version: z.string().startsWith('sandbox-playback.result/'),
  failure: z.unknown().nullable(),
  replayed_tool_calls: z.number().int().optional(),
  output_dir: z.string().nullable(),
  artifacts: z.array(z.object({ role: z.string(), path: z.string() })),
});
const PvisorManifest = z.object({
  schema_version: z.literal('sandbox-replay.plan/v1'),
  boundary: z.object({ after_step: z.number().int(), tool_calls: z.number().int() }),
  batches: z.array(z.object({ tool_calls: z.array(z.object({ arguments: z.record(z.string(), z.unknown()) })) })),
  source: z.object({ sha256: z.string() }),
});
const PvisorSummary = z.object({ replayed_tool_calls: z.number().int() });

const SweTrajectorySteps = z.object({ trajectory: z.array(z.object({ observation: z.string() })) });

/**
 * Observations kept in a native prefix. pVisor's swe-agent profile ("replay-then-live") keeps them in
 * the `trajectory` steps and cuts `history` at the boundary action, so for that format the steps are read.
 */
function nativeObservations(agent: ReplayAgent, text: string): { output: string; exit: number | null }[] {
  if (agent === 'swe-agent') return SweTrajectorySteps.parse(JSON.parse(text)).trajectory.map((step) => ({ output: step.observation, exit: null }));
  return PARSERS[agent](text).messages.flatMap((m) => (m.role === 'tool' ? [{ output: m.output, exit: m.exit_code }] : []));
}

/** The command of a pVisor batch call: `command` (most agents), `cmd` (codex) or `raw_action` (swe-agent). */
function pvisorCommand(args: Record<string, unknown>): string {
  for (const key of ['command', 'cmd', 'raw_action']) if (typeof args[key] === 'string') return args[key] as string;
  return JSON.stringify(args);
}

export async function pvisorEvidence(stdoutLines: readonly string[], outputRoot: string, agent: ReplayAgent): Promise<AttemptEvidence> {
  const problems: string[] = [];
  const results = jsonDocuments(stdoutLines).filter((doc) => typeof doc.schema_version === 'string' && doc.schema_version.startsWith('sandbox-playback.result/'));
  const evidence = emptyEvidence(results.length, problems);
  if (results.length !== 1) return evidence;
  const parsed = PvisorResult.safeParse(results[0]);
  if (!parsed.success) {
    problems.push(`result: ${parsed.error.issues[0]!.message}`);
    return evidence;
  }
  const result = parsed.data;
  const failure = result.failure === null ? null : JSON.stringify(result.failure);
  if (!result.output_dir) return { ...evidence, failure: failure ?? 'no output_dir' };
  const outputDir = resolve(result.output_dir);
  if (relative(resolve(outputRoot), outputDir).startsWith('..')) problems.push(`output_dir ${outputDir} is outside --output-dir ${outputRoot}`);
  const manifestText = await readText(join(outputDir, 'manifest.json'), problems, 'manifest');
  const manifest = parseWith(PvisorManifest, manifestText, problems, 'manifest');
  const summary = parseWith(PvisorSummary, await readText(join(outputDir, 'replay-summary.json'), problems, 'summary'), problems, 'summary');
  const prefixPath = result.artifacts.find((a) => a.role === 'prepared_native_prefix')?.path;
  const prefixText = prefixPath ? await readText(prefixPath, problems, 'native prefix') : null;
  if (!prefixPath) problems.push('no prepared_native_prefix artifact');
  // The kept observations are read back with sandbench's own parser of the same native format.
  let observations: { output: string; exit: number | null }[] = [];
  if (prefixText !== null) {
    try {
      observations = nativeObservations(agent, prefixText);
    } catch (error) {
      problems.push(`native prefix does not parse as ${agent}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (!manifest) return { ...evidence, failure };
  const replayed = result.replayed_tool_calls ?? null;
  return {
    ...evidence,
    failure,
    replayedToolCalls: summary && replayed !== null && summary.replayed_tool_calls !== replayed ? null : replayed,
    afterStep: manifest.boundary.after_step,
    boundaryToolCalls: manifest.boundary.tool_calls,
    keptCommands: manifest.batches.flatMap((b) => b.tool_calls.map((c) => pvisorCommand(c.arguments))),
    keptObservations: observations.map((o) => o.output),
    keptExitCodes: observations.map((o) => o.exit),
    writtenTexts: [manifestText!, ...(prefixText === null ? [] : [prefixText])],
    sourceSha256: manifest.source.sha256,
  };
}
