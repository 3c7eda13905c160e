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
import { execa } from 'execa';
import type { LauncherClient } from './launcher-client.ts';
import { KILL_GRACE_MS } from './spawn-options.ts';
import { establishedSession } from './timing-session.ts';

export interface HelperOptions {
  cwd?: string;
  /** Launcher-side deadline (SIGTERM to the group, SIGKILL after the grace); default 10 min. */
  timeoutMs?: number;
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

function viaLauncher(client: LauncherClient, argv: readonly string[], options: HelperOptions): Promise<HelperResult> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString('utf8');
    client.spawn(
      { argv: [...argv], env: HELPER_ENV, ...(options.cwd ? { cwd: options.cwd } : {}), stdin: 'none', timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, graceMs: KILL_GRACE_MS, warmups: 0 },
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
              reject(failure(argv, `could not start (${event.stage}): ${event.message}`, ''));
              break;
            case 'exit':
              if (event.exitCode === 0 && !timedOut) resolve({ stdout: text(out), stderr: text(err), path: 'launcher' });
              else reject(failure(argv, timedOut ? `timed out after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : event.exitCode !== null ? `exited ${event.exitCode}` : `was killed by signal ${event.signal}`, text(err)));
              break;
            default:
              break;
          }
        },
        onLauncherDeath: (reason) => reject(failure(argv, `lost: sandbench-launch died (${reason})`, text(err))),
      },
    );
  });
}

/** Which path runHelper takes right now (a caller may pick a cheaper plan when it is the launcher). */
export function helperPath(): 'launcher' | 'node' {
  return liveLauncher() ? 'launcher' : 'node';
}

/** Run `argv` to completion; rejects (naming the command, its exit and stderr) unless it exits 0. */
export async function runHelper(argv: readonly string[], options: HelperOptions = {}): Promise<HelperResult> {
  if (argv.length === 0) throw new Error('runHelper: empty argv');
  const client = liveLauncher();
  if (client) return viaLauncher(client, argv, options);
  const result = await execa(argv[0]!, argv.slice(1), { cwd: options.cwd, env: HELPER_ENV, extendEnv: false, reject: false, timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  if (result.exitCode !== 0 || result.timedOut) {
    throw failure(argv, result.timedOut ? `timed out after ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : result.exitCode !== undefined ? `exited ${result.exitCode}` : `was killed by ${result.signal}`, result.stderr);
  }
  return { stdout: result.stdout, stderr: result.stderr, path: 'node' };
}

