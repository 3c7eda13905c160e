/**
 * The checkpoint kind's workload: the baseline workspace every mechanism starts from (a few small
 * source files, plus the state program in `.sandbench/`), the state program's commands, and the
 * parent's mid-rollout edits — all deterministic from the trial seed, so the expected bytes are
 * known on the host and a child is judged against them, not against its own say-so.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { StateProgram } from '../../executors/checkpoint/mechanism.ts';
import { lineRelay } from '../../executors/checkpoint/container-relay.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

export const STATE_SCRIPT = join(PROJECT_ROOT, 'experiments', 'checkpoint', 'state_server.py');
export const SCRIPT_IN_WORKSPACE = '.sandbench/state_server.py';
export const ANSWER_PREFIX = 'STATE ';

/** Baseline files: what every child must still see unless the parent changed it. */
export const BASELINE_FILES: Record<string, string> = {
  'src/app.py': 'def main():\n    return "baseline"\n',
  'src/util.py': 'def helper(x):\n    return x + 1\n',
  'docs/old.md': '# notes the parent deletes\n',
  'README.md': '# checkpoint fixture\n',
};

export function writeCheckpointBaseline(dir: string, epoch: number): void {
  for (const [path, text] of Object.entries(BASELINE_FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
    utimesSync(join(dir, path), epoch, epoch);
  }
  mkdirSync(join(dir, '.sandbench'), { recursive: true });
  copyFileSync(STATE_SCRIPT, join(dir, SCRIPT_IN_WORKSPACE));
}

export const stateProgram: StateProgram = {
  stdio: (workspace, python = '/usr/bin/python3') => ({
    argv: [python, '-u', join(workspace, SCRIPT_IN_WORKSPACE), 'stdio', '--workspace', workspace],
    env: { SANDBENCH_WORKSPACE: workspace, PYTHONDONTWRITEBYTECODE: '1' },
  }),
  tcp: (workspace, port) => ({
    argv: ['/usr/bin/python3', '-u', join(workspace, SCRIPT_IN_WORKSPACE), 'tcp', String(port), '--workspace', workspace],
    env: { SANDBENCH_WORKSPACE: workspace, PYTHONDONTWRITEBYTECODE: '1' },
  }),
  relay: (port) => lineRelay(port, ANSWER_PREFIX),
  answerPrefix: ANSWER_PREFIX,
};

export const sha16 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** The parent's mid-rollout state for one trial seed. */
export interface RolloutPlan {
  counter: number;
  edits: { op: 'write'; path: string; data: string }[];
  deletes: string[];
  bigFile: { path: string; mib: number; seed: number };
}

export function rolloutPlan(seed: number, fileMiB: number): RolloutPlan {
  return {
    counter: 3 + (seed % 5),
    edits: [
      { op: 'write', path: 'src/app.py', data: `def main():\n    return "edited by the parent, seed ${seed}"\n` },
      { op: 'write', path: 'notes/plan.md', data: `# plan\n- step 1 done (seed ${seed})\n` },
    ],
    deletes: ['docs/old.md'],
    bigFile: { path: 'build/artifact.bin', mib: fileMiB, seed },
  };
}

/** What child i writes to diverge: its own file and its own version of a parent-edited file. */
export function divergence(seed: number, child: number): { own: string; ownData: string; shared: string; sharedData: string } {
  return {
    own: `diverge/child-${child}.txt`,
    ownData: `child ${child} of seed ${seed}\n`,
    shared: 'notes/plan.md',
    sharedData: `# plan\n- child ${child} took this branch (seed ${seed})\n`,
  };
}
