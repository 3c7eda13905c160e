import type { Command } from 'commander';
import { registerDoctor } from './doctor.ts';
import { registerImages } from './images.ts';
import { registerPlan } from './plan.ts';
import { registerRun } from './run.ts';
import { registerVerify } from './verify.ts';
import { registerReport } from './report.ts';
import { registerCompare } from './compare.ts';
import { registerGate } from './gate.ts';

/** One entry per subcommand module; add yours here. */
export const COMMAND_REGISTRARS: ((program: Command) => void)[] = [
  registerDoctor,
  registerPlan,
  registerRun,
  registerVerify,
  registerImages,
  registerReport,
  registerCompare,
  registerGate,
];
