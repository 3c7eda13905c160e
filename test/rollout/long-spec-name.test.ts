/**
 * A spec's name is the user's: a 60-character name makes the run id long enough that a rollout
 * cell's model socket (`<fixture root>/sandbench-<run id>/<cell>/model.sock`) is over the 107-byte
 * sun_path limit. The real run (host, the built-in agent and tasks, the model service in its own
 * process) must complete every attempt, its socket bound in the short socket dir
 * (harness/run/socket-path.ts), and leave nothing behind.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { findLeftovers } from '../../harness/clean/find-leftovers.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { SOCKET_PATH_MAX_BYTES, socketDirs } from '../../harness/run/socket-path.ts';
import { fixtureRoot, runScratchDir, scratchRoots, stateDir } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const NAME = 'a-rollout-spec-whose-name-is-sixty-characters-long-on-purpose'.slice(0, 60);

describe('rollout with a long spec name', () => {
  it('completes every attempt with its model socket in the short socket dir, and leaves nothing', async () => {
    expect(NAME).toHaveLength(60);
    const dir = tempDir('sb-long-name-');
    const specPath = join(dir, 'spec.yaml');
    writeFileSync(specPath, `name: ${NAME}\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 7\ntimeout: 120s\nrollout:\n  attempts: 2\n  concurrency: [1]\n  model: [{ slots: 2, base_ms: 20 }]\n  scoring_backend: host\n`);
    // Which runs had a short socket dir while the run was going (the run id is not known before).
    const seen = new Set<string>();
    const watch = setInterval(() => {
      for (const socket of socketDirs([fixtureRoot()])) if (socket.runId) seen.add(socket.runId);
    }, 10);
    const out = join(dir, 'bundle');
    let records;
    try {
      ({ records } = await runSpec({ specPath, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() }));
    } finally {
      clearInterval(watch);
    }
    const runId = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8')).run_id as string;

    expect(records.map((r) => r.outcome), JSON.stringify(records.map((r) => [r.failure_category, r.notes]))).toEqual(['ok', 'ok']);
    // the premise: the socket's own place would not have fit
    const wanted = join(runScratchDir(stateDir(), runId), String(records[0]!.facts.cell_run), 'model.sock');
    expect(Buffer.byteLength(wanted)).toBeGreaterThan(SOCKET_PATH_MAX_BYTES);
    expect(seen.has(runId), `short socket dirs seen: ${[...seen].join(', ')}`).toBe(true);

    expect(existsSync(runScratchDir(stateDir(), runId))).toBe(false);
    expect(socketDirs(scratchRoots()).filter((socket) => socket.runId === runId)).toEqual([]);
    expect(await findLeftovers({ stateDir: stateDir(), runId })).toEqual([]);
  }, 180_000);
});
