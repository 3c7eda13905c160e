/**
 * Short helper commands of the harness's own bookkeeping (`cp -a` of a workspace, `rm -rf` of a
 * trial's scratch) run through the run's native launcher when it is up. Why: Node's spawn forks the
 * harness, and a fork copies the page tables of its whole address space (≈ 150 MB here): about
 * 11 ms of harness CPU per spawn in the rollout bench. Through the launcher the harness pays one
 * pipe write and a few event reads, and the small launcher does the vfork. The helper's own CPU is
 * the work it does for the trial (the copy, the removal) and lands in the helper process, as it did
 * with Node's spawn. Without a launcher (Node timing path, or before the run started one) execa
 * runs the command as before. Helpers never ask for warm-up launches: nothing times them.
 */
import { constants } from 'node:os';
import { execa } from 'execa';
import type { LauncherClient } from './launcher-client.ts';
import { KILL_GRACE_MS } from './spawn-options.ts';
import { establishedSession } from './timing-session.ts';

export interface HelperOptions {
  cwd?: string;
  /** Launcher-side deadline (SIGTERM to the group, SIGKILL after the grace); default 10 min. */
  timeoutMs?: number;
}

export interface CommandOptions extends HelperOptions {
  /** Variables added to the fixed helper environment (HELPER_ENV) or, for an engine CLI, to the harness's own. */
  env?: Record<string, string>;
  /** Start from the harness's environment instead of the fixed helper one (an engine CLI needs HOME, XDG_*, DOCKER_*). */
  inheritEnv?: boolean;
}

/** How one command ended, whatever its exit: callers that read a non-zero exit (an engine CLI) judge it themselves. */
export interface CommandResult {
  exitCode: number | null;
  signal: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  /** Which path ran it (tests and diagnostics). */
  path: 'launcher' | 'node';
}

export interface HelperResult {
  stdout: string;
  stderr: string;
  /** Which path ran it (tests and diagnostics). */
  path: 'launcher' | 'node';
}

const DEFAULT_TIMEOUT_MS = 600_000;
/** The helpers are coreutils; a fixed environment keeps their output (error messages) stable. */
const HELPER_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C', LC_ALL: 'C' };
const STDERR_KEEP = 2000;

function failure(argv: readonly string[], how: string, stderr: string): Error {
  const tail = stderr.trim().slice(-STDERR_KEEP);
  return new Error(`${argv.join(' ')} ${how}${tail ? `: ${tail}` : ''}`);
}

/** The run's launcher, when it is established and alive (never starts one: a run's probe does). */
function liveLauncher(): LauncherClient | null {
  const session = establishedSession();
  return session?.path === 'launcher' && session.client.alive ? session.client : null;
}

function commandEnv(options: CommandOptions): Record<string, string> {
  if (!options.inheritEnv) return { ...HELPER_ENV, ...options.env };
  const inherited = Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return { ...inherited, ...options.env };
}

function viaLauncher(client: LauncherClient, argv: readonly string[], options: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');
    const ended = (exitCode: number | null, signal: number | null, stderr: string) => resolve({ exitCode, signal, timedOut, stdout: text(out), stderr, path: 'launcher' });
    client.spawn(
      { argv: [...argv], env: commandEnv(options), ...(options.cwd ? { cwd: options.cwd } : {}), stdin: 'none', timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, graceMs: KILL_GRACE_MS, warmups: 0 },
      {
        onEvent(event) {
          switch (event.type) {
            case 'output':
              (event.stream === 'stdout' ? out : err).push(event.data);
              break;
            case 'timeout':
              timedOut = true;
              break;
            case 'spawn-failed':
              ended(null, null, `could not start (${event.stage}): ${event.message}`);
              break;
            case 'exit':
              ended(event.exitCode, event.signal, text(err));
              break;
            default:
              break;
          }
        },
        onLauncherDeath: (reason) => ended(null, null, `${text(err)}\nlost: sandbench-launch died (${reason})`.trim()),
      },
    );
  });
}

async function viaNode(argv: readonly string[], options: CommandOptions): Promise<CommandResult> {
  const result = await execa(argv[0]!, argv.slice(1), { cwd: options.cwd, env: commandEnv(options), extendEnv: false, reject: false, stdin: 'ignore', timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  // execa reports a command it could not start as exitCode undefined with the reason in its message.
  const stderr = result.exitCode === undefined && !result.timedOut && !result.signal ? `could not start: ${result.shortMessage ?? result.message}` : result.stderr;
  return { exitCode: result.exitCode ?? null, signal: result.signal ? constants.signals[result.signal] : null, timedOut: result.timedOut, stdout: result.stdout, stderr, path: 'node' };
}

/**
 * Run `argv` to its end and say how it ended, never rejecting on its exit: through the run's launcher
 * when it is up, else through execa. The output is trimmed of one trailing newline either way
 * (execa's `stripFinalNewline`), so both paths give the same text.
 */
export async function runCommand(argv: readonly string[], options: CommandOptions = {}): Promise<CommandResult> {
  if (argv.length === 0) throw new Error('runCommand: empty argv');
  const client = liveLauncher();
  if (!client) return viaNode(argv, options);
  const result = await viaLauncher(client, argv, options);
  return { ...result, stdout: result.stdout.replace(/\r?\n$/, ''), stderr: result.stderr.replace(/\r?\n$/, '') };
}

/** Run `argv` to completion; rejects (naming the command, its exit and stderr) unless it exits 0. */
export async function runHelper(argv: readonly string[], options: HelperOptions = {}): Promise<HelperResult> {
  if (argv.length === 0) throw new Error('runHelper: empty argv');
  const result = await runCommand(argv, options);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (result.exitCode === 0 && !result.timedOut) return { stdout: result.stdout, stderr: result.stderr, path: result.path };
  const how = result.timedOut ? `timed out after ${timeoutMs} ms` : result.exitCode !== null ? `exited ${result.exitCode}` : result.signal !== null ? `was killed by signal ${result.signal}` : 'failed';
  throw failure(argv, how, result.stderr);
}
