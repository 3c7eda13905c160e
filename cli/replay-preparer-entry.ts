/** Process entry of the replay preparer alone (bundled to plain JS for timed attempts, see preparer-bundle.ts). */
import { runReplayCli } from './commands/replay.ts';

await runReplayCli(process.argv);
