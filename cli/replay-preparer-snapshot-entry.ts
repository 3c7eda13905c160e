/**
 * Entry of the preparer as a V8 startup snapshot (`node --snapshot-blob <blob> replay prepare ...`):
 * the module graph is compiled and every zod schema constructed when the blob is built, so a launch
 * only deserializes the heap. Built by preparer-bundle.ts; argv has no script path, hence the shim.
 */
import { startupSnapshot } from 'node:v8';
import { runReplayCli } from './commands/replay.ts';

startupSnapshot.setDeserializeMainFunction(() => {
  void runReplayCli([process.argv[0]!, 'sandbench-replay', ...process.argv.slice(1)]);
});
