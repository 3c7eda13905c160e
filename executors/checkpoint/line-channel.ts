/**
 * The host side of the state program's line protocol over a launched process's stdin/stdout
 * (a spawnTrial, possibly wrapped by the VM console): one JSON request per line, answers are the
 * stdout lines starting with the program's prefix, matched to requests in order. An answer longer
 * than its transport's lines (a VM serial console) may come as continuation lines first:
 * `continuationPrefix(prefix)` + a part of the answer's JSON + `|` (so no trailing space of a part
 * can be lost), then the last part after the prefix as usual.
 */
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import type { StateChannel } from './mechanism.ts';

interface Waiter {
  resolve(answer: Record<string, unknown>): void;
  reject(error: Error): void;
}

/** `ATTEMPT ` → `ATTEMPT+ `: never a prefix of an answer line, so older readers skip it. */
export function continuationPrefix(prefix: string): string {
  return `${prefix.trimEnd()}+ `;
}

export function lineChannel(running: RunningTrial, prefix: string, describe: string): StateChannel {
  const waiters: Waiter[] = [];
  let readyResolve!: () => void;
  let readyReject!: (error: Error) => void;
  const ready = new Promise<void>((resolve, reject) => {
    readyResolve = resolve;
    readyReject = reject;
  });
  // A lost ready is reported through the request that awaits it; never an unhandled rejection.
  ready.catch(() => undefined);
  let greeted = false;
  let closedReason: string | null = null;
  const continued = continuationPrefix(prefix);
  let parts = '';

  running.onLine((line) => {
    if (line.stream !== 'stdout') return;
    const text = line.text.trimEnd();
    if (text.startsWith(continued) && text.endsWith('|')) {
      parts += text.slice(continued.length, -1);
      return;
    }
    if (!text.startsWith(prefix)) return;
    const body = parts + text.slice(prefix.length);
    parts = '';
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      parsed = { ok: false, error: `unparsable answer: ${body.slice(0, 120)}` };
    }
    if (!greeted) {
      greeted = true;
      readyResolve();
      if (parsed.ready === true) return;
    }
    waiters.shift()?.resolve(parsed);
  });
  void running.exit.then((info) => {
    closedReason = `${describe} exited (code ${info.exitCode}, signal ${info.signal}${info.timedOut ? ', timed out' : ''}): ${tail(running)}`;
    readyReject(new Error(closedReason));
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(closedReason));
  });

  return {
    ready,
    async request(message, timeoutMs = 30_000) {
      if (closedReason) throw new Error(closedReason);
      const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${describe}: no answer to ${JSON.stringify(message).slice(0, 80)} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          resolve: (value) => (clearTimeout(timer), resolve(value)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
      });
      running.writeStdin(`${JSON.stringify(message)}\n`);
      const reply = await answer;
      if (reply.ok === false) throw new Error(`${describe}: ${String(reply.error)}`);
      return reply;
    },
    async close() {
      running.closeStdin();
    },
  };
}

function tail(running: RunningTrial): string {
  return running.lines.slice(-4).map((line) => `${line.stream}: ${line.text.slice(0, 200)}`).join(' | ') || 'no output';
}
