/**
 * One Harbor task directory (PyPI `harbor` 0.25.0's format; ../shared/reference/field-integrations.md
 * §4), read and checked before anything runs:
 *
 *   task.toml              [verifier].timeout_sec, [agent].timeout_sec, [environment] cpus,
 *                          memory_mb, workdir, docker_image (refused: a prebuilt registry image)
 *   instruction.md         the agent's prompt
 *   environment/Dockerfile the subset harbor-dockerfile.ts honours offline
 *   tests/test.sh          the verifier: writes /logs/verifier/reward.txt or reward.json
 *   solution/solve.sh      the oracle
 *
 * Every problem is a UserError naming the task directory, the file, the field and the fix.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { UserError } from '../../../harness/errors.ts';
import { parseHarborDockerfile, type HarborDockerfile } from './harbor-dockerfile.ts';

/** Harbor's defaults (harbor/models/task/config.py: VerifierConfig.timeout_sec 600, AgentConfig.timeout_sec None). */
const DEFAULT_VERIFIER_TIMEOUT_SEC = 600;

const positive = z.number().positive();
/** The fields sandbench acts on; the rest of Harbor's schema is accepted as is (Harbor validates it). */
const TaskTomlSchema = z
  .object({
    schema_version: z.string().optional(),
    task: z.object({ name: z.string().min(1).optional() }).passthrough().optional(),
    verifier: z.object({ timeout_sec: positive.optional() }).passthrough().default({}),
    agent: z.object({ timeout_sec: positive.optional() }).passthrough().default({}),
    environment: z
      .object({
        cpus: positive.optional(),
        memory_mb: z.number().int().positive().optional(),
        workdir: z.string().startsWith('/', 'must be an absolute path such as /app').optional(),
        docker_image: z.string().optional(),
        network_mode: z.enum(['public', 'no-network', 'allowlist']).optional(),
      })
      .passthrough()
      .default({}),
    steps: z.unknown().optional(),
  })
  .passthrough();

export interface HarborTaskDir {
  /** Directory name: the task id (made URL-safe by the caller). */
  readonly name: string;
  readonly dir: string;
  readonly instruction: string;
  readonly dockerfile: HarborDockerfile;
  /** The working directory the task's scripts name: task.toml [environment].workdir, else the Dockerfile's WORKDIR. */
  readonly workdir: string;
  readonly verifierTimeoutSec: number;
  readonly agentTimeoutSec: number | null;
  readonly cpus: number | null;
  readonly memoryMb: number | null;
  readonly testScript: string;
  readonly solveScript: string;
}

function requireFile(dir: string, relative: string, fix: string): string {
  const path = join(dir, relative);
  if (!existsSync(path) || !statSync(path).isFile()) throw new UserError(`Harbor task ${dir}: ${relative} is missing; ${fix}`);
  return readFileSync(path, 'utf8');
}

function readToml(dir: string): z.output<typeof TaskTomlSchema> {
  const text = requireFile(dir, 'task.toml', 'every Harbor task needs one (`harbor init --task <dir>` writes a template)');
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}: ` : '';
    throw new UserError(`Harbor task ${dir}: task.toml is not valid TOML (${where}${(error as Error).message.split('\n')[0]}); fix the syntax`);
  }
  const parsed = TaskTomlSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`Harbor task ${dir}: task.toml field ${issue.path.join('.')}: ${issue.message}; correct it (Harbor's schema: harbor/models/task/config.py)`);
  }
  const toml = parsed.data;
  if (toml.steps !== undefined) throw new UserError(`Harbor task ${dir}: task.toml field steps: multi-step tasks are not supported by sandbench's harbor source; split the task into one task per step`);
  if (toml.environment.docker_image) {
    throw new UserError(
      `Harbor task ${dir}: task.toml field environment.docker_image (${toml.environment.docker_image}) names a prebuilt registry image sandbench cannot get offline; remove it and describe the environment in environment/Dockerfile FROM sandbench-task`,
    );
  }
  return toml;
}

/** Reads one Harbor task directory; throws a UserError naming the directory, file, field and fix. */
export function readHarborTaskDir(dir: string): HarborTaskDir {
  const toml = readToml(dir);
  const instruction = requireFile(dir, 'instruction.md', "write the agent's prompt there");
  if (instruction.trim() === '') throw new UserError(`Harbor task ${dir}: instruction.md is empty; write the agent's prompt there`);
  const dockerfilePath = join(dir, 'environment', 'Dockerfile');
  const dockerfileText = requireFile(dir, 'environment/Dockerfile', 'describe the environment there (FROM sandbench-task, RUN apt-get install, WORKDIR, COPY); a compose file is not supported');
  const dockerfile = parseHarborDockerfile(dockerfileText, dockerfilePath);
  const workdir = toml.environment.workdir ?? dockerfile.workdir;
  if (!workdir) throw new UserError(`Harbor task ${dir}: no working directory: set [environment].workdir in task.toml or WORKDIR in environment/Dockerfile (Harbor's template uses /app)`);
  const testScript = requireFile(dir, 'tests/test.sh', 'the verifier must write /logs/verifier/reward.txt (a number) or /logs/verifier/reward.json');
  const solveScript = requireFile(dir, 'solution/solve.sh', 'the oracle is the known-good solution: sandbench proves every task solvable with it before the run');
  return {
    name: toml.task?.name ?? basename(dir),
    dir,
    instruction,
    dockerfile,
    workdir,
    verifierTimeoutSec: toml.verifier.timeout_sec ?? DEFAULT_VERIFIER_TIMEOUT_SEC,
    agentTimeoutSec: toml.agent.timeout_sec ?? null,
    cpus: toml.environment.cpus ?? null,
    memoryMb: toml.environment.memory_mb ?? null,
    testScript,
    solveScript,
  };
}
