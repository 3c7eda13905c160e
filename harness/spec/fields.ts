/** Field types shared by the generic spec and the kinds' own sections: durations, sizes, CPU lists. */
import { z } from 'zod';
import { parseDurationMs, parseSizeMiB } from './units.ts';

export const duration = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const ms = parseDurationMs(value);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a positive duration such as "30s", "500ms" or a number of seconds' });
      return z.NEVER;
    }
    return ms;
  });

export const size = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const mib = parseSizeMiB(value);
    if (mib === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a size such as "2GiB", "256MiB" or a number of MiB' });
      return z.NEVER;
    }
    return mib;
  });

export const cpuList = z
  .string()
  .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'expected a CPU list such as "0,1" or "0-1"');
