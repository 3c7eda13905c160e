/**
 * The debug pass: every connection attempt a CLI makes, from `strace -f -e trace=connect,sendto,
 * sendmsg,sendmmsg` output, split into the model endpoint and everything else (DNS queries,
 * outside hosts, other loopback ports). Pure parser; the kind decides where strace can run (a
 * host-side tracer cannot follow into container runtimes or guests, and strace is not in the image).
 * Traced trials are slower (codex 0.37 → 0.7 s in the reference), so their timings are flagged.
 */

export interface ConnectAttempt {
  family: 'inet' | 'inet6' | 'unix';
  /** `host:port`, or the socket path. */
  destination: string;
  syscall: string;
  /** strace's result text: `0`, `-1 ENETUNREACH (…)`, `-1 EINPROGRESS (…)`. */
  result: string;
}

export interface TraceSummary {
  attempts: ConnectAttempt[];
  /** Attempts to anything but the model endpoint. */
  nonModel: ConnectAttempt[];
  /** Of those, DNS (port 53). */
  dns: number;
}

const INET = /sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)/;
const INET6 = /sa_family=AF_INET6, sin6_port=htons\((\d+)\),[^}]*?inet_pton\(AF_INET6, "([^"]+)"/;
const UNIX = /sa_family=AF_UNIX, sun_path=(@?"[^"]*")/;
const CALL = /^(?:\d+\s+)?(connect|sendto|sendmsg|sendmmsg)\(/;

export function parseConnectTrace(text: string): ConnectAttempt[] {
  const attempts: ConnectAttempt[] = [];
  for (const line of text.split('\n')) {
    const call = CALL.exec(line)?.[1];
    if (!call) continue;
    const result = /\)\s+=\s+(.*)$/.exec(line)?.[1]?.trim() ?? 'unfinished';
    const inet = INET.exec(line);
    const inet6 = INET6.exec(line);
    const unix = UNIX.exec(line);
    // sendto/sendmsg on a connected socket carry no address: nothing new to record.
    if (inet) attempts.push({ family: 'inet', destination: `${inet[2]}:${inet[1]}`, syscall: call, result });
    else if (inet6) attempts.push({ family: 'inet6', destination: `[${inet6[2]}]:${inet6[1]}`, syscall: call, result });
    else if (unix && call === 'connect') attempts.push({ family: 'unix', destination: JSON.parse(unix[1]!.replace(/^@/, '')) as string, syscall: call, result });
  }
  return attempts;
}

/** `modelEndpoints`: the `host:port` and socket paths that are the model service. */
export function summarizeTrace(text: string, modelEndpoints: readonly string[]): TraceSummary {
  const attempts = parseConnectTrace(text);
  const nonModel = attempts.filter((attempt) => !modelEndpoints.includes(attempt.destination) && !isLocalPlumbing(attempt));
  return { attempts, nonModel, dns: nonModel.filter((attempt) => attempt.destination.endsWith(':53')).length };
}

/** libc's own unix sockets (nscd, systemd userdb) and the like are not network destinations. */
function isLocalPlumbing(attempt: ConnectAttempt): boolean {
  return attempt.family === 'unix' && /^\/(var\/)?run\/(nscd|systemd|dbus)\//.test(attempt.destination);
}
