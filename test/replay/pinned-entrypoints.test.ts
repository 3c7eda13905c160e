/**
 * replay.pvisor_agent_entrypoints resolve like every spec path: against the spec file (whatever the
 * working directory), then the package, then the state directory install-pinned-agents.sh fills; a
 * used entry that names no file is the spec's error, naming the file, the field and the fix.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SPEC_KINDS } from '../../experiments/registry.ts';
import { replaySpecSection } from '../../experiments/replay/replay-spec.ts';
import { resolveGivenSpec } from '../../harness/spec/given-spec.ts';
import { readSection } from '../../harness/spec/kind-spec.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { UserError } from '../../harness/errors.ts';
import { tempDir } from '../support/temp-dirs.ts';

function replaySpec(dir: string, replay: string): string {
  const file = join(dir, 'replay.yaml');
  writeFileSync(file, `name: r\nexperiment: replay\narms: [host]\nreplay:\n  mode: replay-only\n  agents: [codex]\n${replay}`);
  return file;
}

const entrypoints = (file: string) => readSection(resolveGivenSpec(file, {}, SPEC_KINDS).spec, replaySpecSection).pvisor_agent_entrypoints;

describe('replay.pvisor_agent_entrypoints', () => {
  const savedHome = process.env.SANDBENCH_HOME;
  afterEach(() => {
    if (savedHome === undefined) delete process.env.SANDBENCH_HOME;
    else process.env.SANDBENCH_HOME = savedHome;
  });

  it('a relative entrypoint resolves against the spec file, not the working directory', () => {
    const dir = tempDir('sandbench-pinned-');
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'codex'), '#!/bin/sh\n');
    chmodSync(join(dir, 'bin', 'codex'), 0o755);
    const file = replaySpec(dir, '  pvisor_agent_entrypoints: { codex: ./bin/codex }\n');
    expect(process.cwd()).not.toBe(dir);
    expect(entrypoints(file)).toEqual({ codex: join(dir, 'bin', 'codex') });
  });

  it('a path found only under the state directory (where install-pinned-agents.sh installs) is that file', () => {
    const home = tempDir('sandbench-pinned-home-');
    process.env.SANDBENCH_HOME = home;
    mkdirSync(join(home, 'agents', 'pinned', 'codex-0.149.0'), { recursive: true });
    writeFileSync(join(home, 'agents', 'pinned', 'codex-0.149.0', 'codex'), '');
    const file = replaySpec(tempDir('sandbench-pinned-'), '  pvisor_agent_entrypoints: { codex: agents/pinned/codex-0.149.0/codex }\n');
    expect(entrypoints(file)).toEqual({ codex: join(home, 'agents', 'pinned', 'codex-0.149.0', 'codex') });
  });

  it('a used entry that names no file is an error naming the spec file, the field and the fix', () => {
    process.env.SANDBENCH_HOME = tempDir('sandbench-pinned-home-');
    const dir = tempDir('sandbench-pinned-');
    const file = replaySpec(dir, '  pvisor_agent_entrypoints: { codex: ./bin/codex }\n');
    const attempt = () => resolveGivenSpec(file, {}, SPEC_KINDS);
    expect(attempt).toThrow(UserError);
    expect(attempt).toThrow(`${file}: replay.pvisor_agent_entrypoints.codex: "./bin/codex" names no file`);
    expect(attempt).toThrow(join(dir, 'bin', 'codex'));
    expect(attempt).toThrow('experiments/replay/reexecute/install-pinned-agents.sh');
    const absolute = replaySpec(dir, '  pvisor_agent_entrypoints: { codex: /nonexistent/codex }\n');
    expect(() => resolveGivenSpec(absolute, {}, SPEC_KINDS)).toThrow(`${absolute}: replay.pvisor_agent_entrypoints.codex: /nonexistent/codex does not exist`);
  });

  it('an entry the run does not use (pvisor-replay not a subject) is no error, so the shipped VM spec loads', () => {
    process.env.SANDBENCH_HOME = tempDir('sandbench-pinned-home-');
    const dir = tempDir('sandbench-pinned-');
    const file = replaySpec(dir, '  subjects: [sandbench]\n  pvisor_agent_entrypoints: { codex: ./bin/codex }\n');
    expect(entrypoints(file)).toEqual({ codex: join(dir, 'bin', 'codex') });
    expect(() => resolveGivenSpec(join(PROJECT_ROOT, 'experiments', 'specs', 'replay-only-vm.yaml'), {}, SPEC_KINDS)).not.toThrow();
  });
});
