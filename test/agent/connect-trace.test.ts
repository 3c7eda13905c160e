import { describe, expect, it } from 'vitest';
import { parseConnectTrace, summarizeTrace } from '../../experiments/agent/connect-trace.ts';

// Lines in the shape strace 6.1 writes with -f -o (pid prefix), including an unfinished/resumed pair.
const TRACE = [
  '4101  connect(9, {sa_family=AF_INET, sin_port=htons(41234), sin_addr=inet_addr("127.0.0.1")}, 16) = -1 EINPROGRESS (Operation now in progress)',
  '4102  connect(5, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("10.0.0.2")}, 16) = 0',
  '4102  sendto(5, "\\x12\\x34", 2, MSG_NOSIGNAL, NULL, 0) = 2',
  '4103  sendto(6, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "2606:4700::1111", &sin6_addr), sin6_scope_id=0}, 28) = -1 ENETUNREACH (Network is unreachable)',
  '4104  connect(7, {sa_family=AF_UNIX, sun_path="/run/sandbench/model.sock"}, 110) = 0',
  '4105  connect(8, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)',
  '4106  +++ exited with 0 +++',
].join('\n');

describe('connection trace of the debug pass', () => {
  it('reads every addressed attempt with its result', () => {
    expect(parseConnectTrace(TRACE).map((attempt) => `${attempt.family} ${attempt.destination} ${attempt.result.split(' ')[0]}`)).toEqual([
      'inet 127.0.0.1:41234 -1',
      'inet 10.0.0.2:53 0',
      'inet6 [2606:4700::1111]:443 -1',
      'unix /run/sandbench/model.sock 0',
      'unix /var/run/nscd/socket -1',
    ]);
  });

  it('everything but the model endpoints and libc plumbing is a non-model attempt; DNS counted', () => {
    const summary = summarizeTrace(TRACE, ['127.0.0.1:41234', '/run/sandbench/model.sock']);
    expect(summary.nonModel.map((attempt) => attempt.destination)).toEqual(['10.0.0.2:53', '[2606:4700::1111]:443']);
    expect(summary.dns).toBe(1);
  });
});
