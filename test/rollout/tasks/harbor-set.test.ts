/**
 * The shipped Harbor task set (data/harbor-tasks/, issue 34 item 1): it loads with the spec's image
 * packages, its environment-prepare steps really ran into the baselines (a gcc build, a git clone of
 * a bundled repository, PyPI wheels pinned by hash), and every task passes the solvability pre-pass:
 * the oracle (solution/solve.sh) earns reward 1 and the baseline 0, through the task's own test.sh
 * (scored on the host backend, as `scoring_backend: host` does).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { loadTaskSet } from '../../../experiments/rollout/tasks/index.ts';
import { checkTasks, type ScoreProbe } from '../../../experiments/rollout/tasks/solvability.ts';
import { tempDir } from '../../support/temp-dirs.ts';
import { scoreCandidate } from './score-on-host.ts';

const SHIPPED = join(PROJECT_ROOT, 'data', 'harbor-tasks');
const root = tempDir('sandbench-harbor-set-');

/** The image packages of the spec that runs the set, so the test loads it as that spec does. */
function specPackages(): string[] {
  const spec = parseYaml(readFileSync(join(PROJECT_ROOT, 'experiments', 'specs', 'harbor-set.yaml'), 'utf8')) as { image: { packages: string[] } };
  return spec.image.packages;
}

describe('the shipped Harbor task set', () => {
  it('loads, runs its prepare steps, and every task is solvable: oracle 1, baseline 0', async () => {
    const logs: string[] = [];
    const set = await loadTaskSet(`harbor:${SHIPPED}`, { cacheDir: join(root, 'cache'), imagePackages: specPackages(), log: (line) => logs.push(line) });
    expect(set.tasks.map((task) => task.id)).toEqual(['c-adler32', 'clone-calc', 'count-words', 'invoice-totals', 'pip-versions', 'write-greeting']);
    const repo = (id: string) => set.tasks.find((task) => task.id === id)!.repoDir;
    // The prepare steps' results are in the baselines the sandboxes start from.
    expect(existsSync(join(repo('c-adler32'), 'adler32'))).toBe(true);
    expect(existsSync(join(repo('clone-calc'), 'calc', '.git'))).toBe(true);
    expect(readFileSync(join(repo('clone-calc'), 'calc', 'calc', 'evaluate.py'), 'utf8')).toMatch(/value - parse_sum\(tokens\)/);
    expect(existsSync(join(repo('pip-versions'), '.deps', 'packaging', 'version.py'))).toBe(true);
    expect(existsSync(join(repo('pip-versions'), '.deps', 'pytest', '__init__.py'))).toBe(true);
    expect(logs.join('\n')).toMatch(/pip-versions environment prepare \(built once, cached\): pip \d+ ms \(Dockerfile:6\)/);

    let probes = 0;
    const probe: ScoreProbe = async (task, candidate, scratch) => {
      probes += 1;
      return scoreCandidate(task, candidate, scratch);
    };
    const verdicts = await checkTasks(set.tasks, { cacheDir: join(root, 'cache'), environmentKey: 'host', score: probe });
    for (const verdict of verdicts) expect(verdict, verdict.task_id).toMatchObject({ valid: true, reasons: [] });
    expect(probes).toBe(2 * set.tasks.length); // the gold and the baseline of each task were scored
  }, 60_000);
});
