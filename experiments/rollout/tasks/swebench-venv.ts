/**
 * The swebench grader's venv, built on first use by scripts/build-swebench-grader-venv.sh (the same
 * script scripts/setup.sh runs), at $SANDBENCH_HOME/swebench-grader-5.0.2. The command is logged
 * before it runs, so a user without PyPI access knows what to run where it is reachable.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { UserError } from '../../../harness/errors.ts';
import { PROJECT_ROOT, stateDir } from '../../../harness/state-dir.ts';
import { SWEBENCH_VERSION, type GraderProcess } from './swebench-evaluator.ts';

export const SWEBENCH_VENV_SCRIPT = join(PROJECT_ROOT, 'scripts', 'build-swebench-grader-venv.sh');

export function swebenchVenvDir(): string {
  return join(stateDir(), `swebench-grader-${SWEBENCH_VERSION}`);
}

export async function ensureSwebenchGrader(log?: (line: string) => void): Promise<GraderProcess> {
  const dir = swebenchVenvDir();
  const python = join(dir, 'bin', 'python');
  if (existsSync(python)) {
    const check = await execa(python, ['-c', `import unidiff, importlib.metadata as m; assert m.version("swebench") == "${SWEBENCH_VERSION}"`], { reject: false });
    if (check.exitCode === 0) return { python };
  }
  log?.(`rollout grader swebench: building its venv: ${SWEBENCH_VENV_SCRIPT} ${dir}`);
  const built = await execa(SWEBENCH_VENV_SCRIPT, [dir], { reject: false, timeout: 600_000 });
  if (built.exitCode !== 0) {
    throw new UserError(`rollout.grader: swebench: the grader venv could not be built (${String(built.stderr).trim().split('\n').slice(-2).join(' | ')}); run ${SWEBENCH_VENV_SCRIPT} ${dir} where PyPI is reachable, or use grader: unittest`);
  }
  return { python };
}
