/**
 * `sandbench replay prepare`: read a native trajectory, parse it into the canonical history, cut after
 * the N-th complete tool batch and write the prefix and its manifest. Reads and writes files only;
 * no tool of the trajectory is executed.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AGENT_FORMATS, type ReplayAgent } from './agents.ts';
import type { CanonicalHistory } from './canonical-history.ts';
import { cutAfterStep, toolBatches } from './cut-prefix.ts';
import { PARSERS } from './parse/index.ts';
import { MANIFEST_FILE, MANIFEST_SCHEMA, PREFIX_FILE, RESULT_SCHEMA, type PrepareResult, type ReplayManifest } from './prepare-manifest.ts';
import { ReplayError } from './replay-error.ts';

/** Version of the preparer recorded in each manifest; follows the package version. */
export const PREPARER_VERSION = '0.1.0';

export interface PrepareOptions {
  agent: ReplayAgent;
  trajectoryPath: string;
  afterStep: number;
  outDir: string;
}

export async function readTrajectory(path: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ReplayError('unreadable_trajectory', `cannot read trajectory ${path} (${code})`);
  }
}

export function parseTrajectory(agent: ReplayAgent, bytes: Buffer): CanonicalHistory {
  return PARSERS[agent](bytes.toString('utf8'));
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export async function preparePrefix(options: PrepareOptions): Promise<PrepareResult> {
  const sourcePath = resolve(options.trajectoryPath);
  const bytes = await readTrajectory(sourcePath);
  const history = parseTrajectory(options.agent, bytes);
  const prefix = cutAfterStep(history, options.afterStep);
  const prefixHistory: CanonicalHistory = { ...history, messages: prefix.messages };
  const prefixText = `${JSON.stringify(prefixHistory, null, 2)}\n`;
  const manifest: ReplayManifest = {
    schema: MANIFEST_SCHEMA,
    preparer: { name: 'sandbench', version: PREPARER_VERSION },
    agent: options.agent,
    recorded_version: history.source.recorded_version,
    modelled_version: AGENT_FORMATS[options.agent].version,
    source: { path: sourcePath, sha256: sha256(bytes), bytes: bytes.length },
    boundary: {
      after_step: prefix.afterStep,
      tool_calls: prefix.batch.calls.length,
      kept_messages: prefix.messages.length,
      total_messages: history.messages.length,
      total_batches: toolBatches(history).length,
      excluded_next_calls: prefix.excludedNextCalls,
    },
    kept_calls: prefix.keptCalls,
    kept_observations: prefix.keptObservations.map((m) => ({ call_id: m.call_id, output: m.output, exit_code: m.exit_code, is_error: m.is_error })),
    replayed_tool_calls: 0,
    prefix: { file: PREFIX_FILE, sha256: sha256(prefixText) },
  };
  const outDir = resolve(options.outDir);
  const manifestPath = join(outDir, MANIFEST_FILE);
  try {
    await mkdir(outDir, { recursive: true });
    await writeFile(join(outDir, PREFIX_FILE), prefixText);
    await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  } catch (error) {
    throw new ReplayError('output_failed', `cannot write the prefix to ${outDir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return {
    schema: RESULT_SCHEMA,
    status: 'prepared',
    manifest: manifestPath,
    after_step: prefix.afterStep,
    tool_calls: prefix.batch.calls.length,
    replayed_tool_calls: 0,
    failure: null,
  };
}
