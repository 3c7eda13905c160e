/**
 * The real codex (Responses) and Claude Code (Messages) against the service on the host, with the
 * offline configuration of data/agents/protocols.md written here (not the agent kind's entry
 * script, so this tests the service alone). Uses the agent layers the agent kind builds and caches;
 * without a cached layer the test is skipped and says so (build one: `sandbench images build` /
 * the agent kind's spec).
 */
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateDir } from '../../../harness/state-dir.ts';
import { AGENTS } from '../../../experiments/agent/agents.ts';
import { cachedLayer } from '../../../experiments/agent/layers.ts';
import { readModelJournal, scriptedTurnsProblem, startModelService, summarizeAttempts, type ModelService } from '../../../services/model/index.ts';

const PROMPT = 'Create marker.txt containing fixture using the shell tool, then reply done.';
const codex = cachedLayer(stateDir(), AGENTS.codex);
const claude = cachedLayer(stateDir(), AGENTS.claude);
let dir: string;
let service: ModelService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-real-'));
  if (!codex || !claude) console.warn(`real-cli: no cached agent layer for ${[!codex && 'codex', !claude && 'claude'].filter(Boolean).join(', ')} under ${stateDir()}/agents: skipped`);
  service = await startModelService({ script: join(import.meta.dirname, '../../../data/model-scripts/marker.yaml'), socketDir: dir, port: 0, slots: 2, baseMs: 2, perTokenMs: 0.2 });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function checkTraffic(attempt: string, work: string) {
  expect(readFileSync(join(work, 'marker.txt'), 'utf8')).toBe('fixture');
  const traffic = summarizeAttempts(readModelJournal(service.journalPath).entries).find((entry) => entry.attempt === attempt)!;
  expect(scriptedTurnsProblem(traffic, service.script.tasks[0])).toBeNull();
  return traffic;
}

describe('real agent CLIs', () => {
  it.skipIf(!codex)(`codex ${AGENTS.codex.version} completes the marker loop over the Responses API`, async () => {
    const home = mkdtempSync(join(dir, 'codex-home-'));
    const work = mkdtempSync(join(dir, 'codex-work-'));
    writeFileSync(
      join(home, 'config.toml'),
      [
        'model = "fake-model"', 'model_provider = "sandbench"', 'approval_policy = "never"', 'sandbox_mode = "danger-full-access"', 'check_for_update_on_startup = false',
        '[model_providers.sandbench]', 'name = "sandbench"', `base_url = "http://127.0.0.1:${service.port}/a/codex/v1"`, 'wire_api = "responses"', 'env_key = "SANDBENCH_MODEL_KEY"', 'request_max_retries = 0', 'stream_max_retries = 0',
        '[analytics]', 'enabled = false', '[feedback]', 'enabled = false', '[features]', 'plugins = false', '',
      ].join('\n'),
    );
    const result = await execa(join(codex!.dir, 'bin', 'codex'), ['exec', '--skip-git-repo-check', '--ephemeral', '--dangerously-bypass-approvals-and-sandbox', PROMPT], { cwd: work, env: { HOME: home, CODEX_HOME: home, SANDBENCH_MODEL_KEY: 'offline' }, stdin: 'ignore', reject: false, timeout: 120_000 });
    expect(result.exitCode, result.stderr.slice(-500)).toBe(0);
    expect(checkTraffic('codex', work)).toMatchObject({ generations: 2, turnsAnswered: [0, 1] });
  });

  it.skipIf(!claude)(`Claude Code ${AGENTS.claude.version} completes the marker loop over Anthropic Messages`, async () => {
    const home = mkdtempSync(join(dir, 'claude-home-'));
    const work = mkdtempSync(join(dir, 'claude-work-'));
    mkdirSync(join(home, 'tmp'));
    const env = {
      HOME: home, TMPDIR: join(home, 'tmp'), ANTHROPIC_BASE_URL: `http://127.0.0.1:${service.port}/a/claude`, ANTHROPIC_API_KEY: 'offline', ANTHROPIC_MODEL: 'fake-model', ANTHROPIC_SMALL_FAST_MODEL: 'fake-model',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', IS_SANDBOX: '1',
    };
    const result = await execa(join(claude!.dir, 'bin', 'claude'), ['--bare', '--tools', 'Bash', '--no-session-persistence', '--dangerously-skip-permissions', '-p', PROMPT], { cwd: work, env, stdin: 'ignore', reject: false, timeout: 120_000 });
    expect(result.exitCode, result.stderr.slice(-500)).toBe(0);
    expect(checkTraffic('claude', work)).toMatchObject({ generations: 2, turnsAnswered: [0, 1] });
  });
});
