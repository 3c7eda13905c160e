#!/usr/bin/env node
// Lean entry for `sandbench replay ...`: loads only the replay command and its modules (not the
// whole CLI), because each prepare attempt is a separate, timed process. Usage:
//   sandbench-replay replay prepare --agent <a> --trajectory <f> --after-step 1 --out <dir>
import { register } from 'tsx/esm/api';
register();
await import('../cli/replay-preparer-entry.ts');
