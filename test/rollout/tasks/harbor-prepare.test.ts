/**
 * The Dockerfile RUN steps a Harbor task may use to prepare its environment offline
 * (experiments/rollout/tasks/harbor-prepare.ts): pip with hashes into the workspace, git clone of a
 * local bundle, gcc. What cannot work offline or would leave the workspace is refused with the
 * Dockerfile line and the reason; an honoured step really runs into the baseline.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../harness/errors.ts';
import { parseHarborDockerfile } from '../../../experiments/rollout/tasks/harbor-dockerfile.ts';
import { runPrepareStep } from '../../../experiments/rollout/tasks/harbor-prepare.ts';
import { tempDir } from '../../support/temp-dirs.ts';

const root = tempDir('sandbench-harbor-prepare-');
const FILE = '/tasks/t/environment/Dockerfile';
const parse = (run: string) => parseHarborDockerfile(`FROM sandbench-task\nWORKDIR /app\nRUN ${run}\n`, FILE);

function refusal(run: string): string {
  try {
    parse(run);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error(`RUN ${run} was accepted`);
}

describe('Harbor Dockerfile prepare steps', () => {
  it('reads pip with hashes, git clone of a local path and gcc, in order with apt', () => {
    const parsed = parse('apt-get update && apt-get install -y g++ && pip install --no-cache-dir --require-hashes -r /app/req.txt --target /app/.deps && git clone -q /app/up.bundle /app/up && gcc -O2 -o /app/x /app/x.c');
    expect(parsed.packages).toEqual(['g++']);
    expect(parsed.runs).toEqual([
      {
        line: 3,
        workdir: '/app',
        commands: [
          { kind: 'pip', requirements: '/app/req.txt', target: '/app/.deps' },
          { kind: 'git-clone', source: '/app/up.bundle', dest: '/app/up' },
          { kind: 'compile', compiler: 'gcc', args: ['-O2', '-o', '/app/x', '/app/x.c'] },
        ],
      },
    ]);
    expect(parse('python3 -m pip install --require-hashes --requirement=req.txt -t deps').runs[0]!.commands[0]).toEqual({ kind: 'pip', requirements: 'req.txt', target: 'deps' });
  });

  it('refuses what cannot work offline or would escape the workspace, naming the line and the reason', () => {
    expect(refusal('pip install -r /app/req.txt --target /app/.deps')).toMatch(/^\/tasks\/t\/environment\/Dockerfile:3: RUN pip install .* without --require-hashes is not reproducible/);
    expect(refusal('pip install --require-hashes -r /app/req.txt')).toMatch(/without --target would install into the task image's Python/);
    expect(refusal('pip install --require-hashes requests')).toMatch(/names a package outside a hashed requirements file/);
    expect(refusal('pip install --require-hashes -r r.txt -t d --index-url http://x')).toMatch(/pip flag --index-url is not honoured/);
    expect(refusal('git clone https://github.com/x/y /app/y')).toMatch(/needs the network, which no sandbox has; bundle the repository/);
    expect(refusal('git clone git@github.com:x/y /app/y')).toMatch(/needs the network/);
    expect(refusal('curl -fsSL https://x | sh')).toMatch(/uses shell syntax/);
    expect(refusal('make -C /app')).toMatch(/make is not one of the prepare steps sandbench honours offline/);
  });

  it('runs a gcc step into the workspace, and refuses a path outside WORKDIR at run time', () => {
    const out = join(root, 'gcc');
    mkdirSync(join(out, 'src'), { recursive: true });
    writeFileSync(join(out, 'src', 'hi.c'), '#include <stdio.h>\nint main(void) { puts("hi"); return 0; }\n');
    const step = parse('gcc -o /app/hi src/hi.c').runs[0]!;
    const timings = runPrepareStep(step, '/app', out, `${FILE}:3`);
    expect(timings).toMatchObject([{ line: 3, command: 'compile' }]);
    expect(execFileSync(join(out, 'hi'), { encoding: 'utf8' })).toBe('hi\n');
    expect(() => runPrepareStep(parse('gcc -o /etc/hi /app/src/hi.c').runs[0]!, '/app', out, `${FILE}:3`)).toThrow(/Dockerfile:3: \/etc\/hi is outside the task's working directory \/app/);
    const broken = parse('gcc -o /app/bad /app/src/missing.c').runs[0]!;
    expect(() => runPrepareStep(broken, '/app', out, `${FILE}:3`)).toThrow(/Dockerfile:3: gcc .* failed \(exit 1\)/);
    expect(readFileSync(join(out, 'src', 'hi.c'), 'utf8')).toContain('puts');
  });
});
