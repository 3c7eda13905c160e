/**
 * A Harbor task's `environment/Dockerfile`, read as what sandbench can honour offline (no registry,
 * no network but the Debian mirror the task image is built from). Every backend runs one task image
 * (docs/architecture.md), so a Dockerfile is not built per task; instead each line is mapped:
 *
 *   FROM sandbench-task            the run's task image (Debian bookworm, built from Debian packages)
 *   RUN apt-get install -y PKG...  Debian packages the run's image must hold (checked at load time;
 *                                  the fix is to list them in the spec's `image.packages`)
 *   WORKDIR DIR                    the task's working directory: mapped to the sandbox workspace
 *   COPY SRC... DEST               files from environment/ into the baseline workspace (DEST in WORKDIR)
 *   RUN pip install --require-hashes / git clone BUNDLE / gcc
 *                                  prepare steps run into the baseline workspace at load time
 *                                  (harbor-prepare.ts), in line order with the COPY lines
 *
 * Anything else (a registry image, ADD with a URL, an unpinned `pip install`, `RUN curl`, ENV...) cannot be
 * honoured the same way on every backend and is refused with the line, the reason and the fix.
 */
import { UserError } from '../../../harness/errors.ts';
import { prepareCommand, type DockerfileRun, type PrepareCommand } from './harbor-prepare.ts';

/** The image name a Harbor task's Dockerfile uses for sandbench's task image. */
export const SANDBENCH_BASE_IMAGE = 'sandbench-task';

export interface DockerfileCopy {
  /** Paths relative to the task's environment/ directory (the build context). */
  readonly sources: readonly string[];
  /** Destination inside the image: absolute, or relative to the WORKDIR in force. */
  readonly dest: string;
  /** The WORKDIR in force at this line (null before any). */
  readonly workdir: string | null;
  readonly line: number;
}

export interface HarborDockerfile {
  /** The last WORKDIR (null when the Dockerfile sets none). */
  readonly workdir: string | null;
  /** Debian packages `RUN apt-get install` asks for, in order, without duplicates. */
  readonly packages: readonly string[];
  readonly copies: readonly DockerfileCopy[];
  /** RUN lines with prepare commands (pip, git clone, gcc), run into the workspace in line order with the COPY lines. */
  readonly runs: readonly DockerfileRun[];
}

interface Instruction {
  readonly line: number;
  readonly keyword: string;
  readonly args: string;
}

/** Logical lines: comments and blanks dropped, `\` continuations joined, numbered by their first line. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending: { line: number; text: string } | null = null;
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (pending === null && (trimmed === '' || trimmed.startsWith('#'))) return;
    if (pending !== null && trimmed.startsWith('#')) return;
    const continued = trimmed.endsWith('\\');
    const body = continued ? trimmed.slice(0, -1) : trimmed;
    pending = pending === null ? { line: index + 1, text: body } : { line: pending.line, text: `${pending.text} ${body}` };
    if (continued) return;
    const match = /^(\S+)\s*(.*)$/.exec(pending.text.trim());
    if (match) out.push({ line: pending.line, keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
    pending = null;
  });
  return out;
}

/** What one RUN line asks for: Debian packages for the image, and prepare commands for the workspace. */
interface RunParts {
  readonly packages: string[];
  readonly commands: PrepareCommand[];
}

/**
 * A RUN line's `&&`-joined parts: `apt-get update`, `apt-get install [-y|--no-install-recommends|-q...]
 * pkgs`, `rm -rf /var/lib/apt/lists/*`, and the prepare commands harbor-prepare.ts honours; else the
 * reason the line is refused.
 */
function runParts(command: string): RunParts | string {
  const packages: string[] = [];
  const commands: PrepareCommand[] = [];
  for (const part of command.split('&&').map((p) => p.trim())) {
    const words = part.split(/\s+/).filter((w) => w !== '');
    if (words.length === 0) return 'an empty command between &&';
    if (/[|;<>`$'"]/.test(part)) return `${part.slice(0, 60)} uses shell syntax (pipes, redirections, substitutions, quotes), which sandbench does not interpret`;
    if (words[0] === 'DEBIAN_FRONTEND=noninteractive') words.shift();
    const [tool, verb, ...rest] = words;
    if ((tool === 'apt-get' || tool === 'apt') && verb === 'update') continue;
    if (tool === 'rm' && verb === '-rf' && rest.every((path) => path.startsWith('/var/lib/apt/lists'))) continue;
    if ((tool === 'apt-get' || tool === 'apt') && verb === 'install') {
      const names = rest.filter((w) => !w.startsWith('-'));
      const bad = names.find((name) => !/^[a-z0-9][a-z0-9+.-]*(=[A-Za-z0-9.+:~-]+)?$/.test(name));
      if (bad !== undefined) return `${bad} is not a Debian package name`;
      packages.push(...names.map((name) => name.split('=')[0]!));
      continue;
    }
    const prepared = prepareCommand(words);
    if (typeof prepared === 'string') return prepared;
    commands.push(prepared);
  }
  return { packages, commands };
}

function jsonOrWords(args: string): string[] {
  if (args.startsWith('[')) {
    try {
      const parsed = JSON.parse(args) as unknown;
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === 'string')) return parsed as string[];
    } catch {
      // fall through: read as words, and the caller judges them
    }
  }
  return args.split(/\s+/).filter((w) => w !== '');
}

/** Reads a Dockerfile's text; `file` names it in errors. */
export function parseHarborDockerfile(text: string, file: string): HarborDockerfile {
  const refuse = (line: number, what: string, fix: string): never => {
    throw new UserError(`${file}:${line}: ${what}; ${fix}`);
  };
  const lines = instructions(text);
  const first = lines[0];
  if (!first || first.keyword !== 'FROM') refuse(first?.line ?? 1, 'the Dockerfile does not start with FROM', `start it with FROM ${SANDBENCH_BASE_IMAGE}`);
  let workdir: string | null = null;
  const packages: string[] = [];
  const copies: DockerfileCopy[] = [];
  const runs: DockerfileRun[] = [];
  for (const { line, keyword, args } of lines) {
    switch (keyword) {
      case 'FROM': {
        const image = args.split(/\s+/)[0] ?? '';
        if (line !== first!.line) refuse(line, 'a second FROM (a multi-stage build)', 'use one stage FROM sandbench-task');
        if (image !== SANDBENCH_BASE_IMAGE) {
          refuse(
            line,
            `FROM ${image} names a registry image sandbench cannot get offline (it runs every backend on its own Debian-built task image)`,
            `change the line to FROM ${SANDBENCH_BASE_IMAGE} and install what the task needs with RUN apt-get install -y <Debian packages> (then list them in the spec's image.packages)`,
          );
        }
        break;
      }
      case 'WORKDIR':
        if (!args.startsWith('/')) refuse(line, `WORKDIR ${args} is not an absolute path`, 'give an absolute WORKDIR such as /app');
        workdir = args.replace(/\/+$/, '') || '/';
        break;
      case 'RUN': {
        const found = runParts(args);
        if (typeof found === 'string') {
          refuse(
            line,
            `RUN ${args.slice(0, 80)} cannot be honoured offline on every backend: ${found}`,
            "move the step into the task (commit its result under environment/ and COPY it, or do it in solution/solve.sh), or use a step sandbench honours: apt-get install, pip install --require-hashes -r REQ --target DIR, git clone of a COPY'd bundle, gcc",
          );
        }
        const parts = found as RunParts;
        for (const name of parts.packages) if (!packages.includes(name)) packages.push(name);
        if (parts.commands.length > 0) runs.push({ line, workdir, commands: parts.commands });
        break;
      }
      case 'COPY': {
        const words = jsonOrWords(args);
        if (words.some((w) => w.startsWith('--'))) refuse(line, `COPY ${args} uses a flag (${words.find((w) => w.startsWith('--'))})`, 'drop the flag: sandbench copies files as the sandbox user');
        if (words.length < 2) refuse(line, `COPY ${args} needs a source and a destination`, 'write COPY <source...> <destination>');
        copies.push({ sources: words.slice(0, -1), dest: words.at(-1)!, workdir, line });
        break;
      }
      default:
        refuse(
          line,
          `${keyword} cannot be honoured offline on every backend`,
          `remove it: sandbench's Dockerfile subset is FROM ${SANDBENCH_BASE_IMAGE}, WORKDIR, COPY and RUN with apt-get install, pip install --require-hashes, git clone of a local bundle or gcc (docs/harbor.md)`,
        );
    }
  }
  return { workdir, packages, copies, runs };
}
