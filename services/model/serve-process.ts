/**
 * Entry of a model service in its own process (startModelServiceProcess): the harness's own work
 * (C sandboxes' output, analysis) then cannot delay the service's timers. Measured on the shared
 * 2-core machine (`npm run bench -- model`, n=180 replies each): median service-time overshoot
 * 1.2 ms in its own process vs 7.6 ms sharing the clients' event loop at load ~35; at load ~75 the
 * run queue dominates (7.8 vs 10.3 ms). It exits when its parent goes away (stdin closes), so a
 * harness killed with -9 leaves no service behind.
 *   argv[2]: JSON {script (path), socketPath, port?, slots, baseMs, perTokenMs, journalPath}
 *   prints:  MODEL_SERVICE_READY {"socket", "port", "journal"}
 */
import { startModelService } from './index.ts';

const config = JSON.parse(process.argv[2] ?? '{}') as { script: string; socketPath: string; port?: number; slots: number; baseMs: number; perTokenMs: number; journalPath: string };
try {
  const service = await startModelService({ ...config, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`MODEL_SERVICE_READY ${JSON.stringify({ socket: service.socketPath, port: service.port, journal: service.journalPath })}\n`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void service.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('error', stop);
  process.stdin.resume();
} catch (error) {
  process.stderr.write(`MODEL_SERVICE_ERROR ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
