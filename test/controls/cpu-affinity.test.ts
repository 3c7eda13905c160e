import { describe, expect, it } from 'vitest';
import { affinityArgv, allowedCpus, formatCpuList, parseCpuList } from '../../harness/controls/cpu-affinity.ts';
import { parseProcCgroup } from '../../harness/controls/proc-tree.ts';

describe('cpu lists', () => {
  it('round-trips kernel cpu lists', () => {
    expect(parseCpuList('0-1,3,5-6')).toEqual([0, 1, 3, 5, 6]);
    expect(formatCpuList([3, 0, 1, 1])).toBe('0-1,3');
    expect(affinityArgv('0,1')).toEqual(['taskset', '-c', '0-1']);
    expect(() => parseCpuList('1-0')).toThrow();
    expect(allowedCpus().length).toBeGreaterThan(0);
  });
  it('parses /proc/<pid>/cgroup with co-mounted controllers', () => {
    const parsed = parseProcCgroup('4:memory:/a/b\n1:cpu,cpuacct:/a\n0::/\n');
    expect(parsed.v1.get('memory')).toBe('/a/b');
    expect(parsed.v1.get('cpuacct')).toBe('/a');
    expect(parsed.v2).toBe('/');
  });
});
