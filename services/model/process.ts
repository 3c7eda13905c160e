/**
 * The model service in a child process, behind the same ModelService interface: for kinds whose
 * own event loop is busy (many concurrent sandboxes), so model service time stays the controlled
 * variable. stats() is derived from the journal (active/queued are then null).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { MODEL_JOURNAL_FILE, ModelServiceConfigError, placeModelSocket, type ModelService, type ModelServiceConfig } from './index.ts';
import { readModelJournal } from './journal.ts';
import { statsFromJournal } from './journal-summary.ts';
import { loadModelScript } from './script.ts';

// from PROJECT_ROOT, not import.meta.url: in the bundled dist/ CLI this module lives in dist/
const ENTRY = join(PROJECT_ROOT, 'services', 'model', 'serve-process.ts');

export interface ModelServiceProcessConfig extends ModelServiceConfig {
  /**
   * Scheduling priority of the service process (os.setPriority: −20 highest … 19). A raised priority
   * keeps a loaded machine's run queue from stretching the controlled service time; the service
   * itself needs little CPU. Lowering below 0 needs root (CAP_SYS_NICE); refused otherwise.
   */
  priority?: number;
}

export async function startModelServiceProcess(config: ModelServiceProcessConfig): Promise<ModelService> {
  // validate here, so a bad script is the same clear error as in-process, before anything is spawned
  const script = typeof config.script === 'string' ? loadModelScript(config.script) : config.script;
  // placed here, not in the child: this process removes the socket's (short) directory when the child is gone
  const { socket, journalDir } = placeModelSocket(config);
  const socketPath = socket.path;
  const journalPath = config.journalPath ?? join(journalDir, MODEL_JOURNAL_FILE);
  const scratch = mkdtempSync(join(tmpdir(), 'sandbench-model-script-'));
  const scriptPath = join(scratch, 'script.json');
  writeFileSync(scriptPath, JSON.stringify(script));
  const slots = config.slots ?? 4;
  const args = { script: scriptPath, socketPath, port: config.port, slots, baseMs: config.baseMs ?? 0, perTokenMs: config.perTokenMs ?? 0, journalPath };
  // tsx resolved from this package, not from the cwd: a run started outside the checkout failed every attempt ("Cannot find package 'tsx'").
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), ENTRY, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'pipe'] });
  const startedNs = process.hrtime.bigint();
  if (config.priority !== undefined) {
    try {
      setPriority(child.pid!, config.priority);
    } catch (error) {
      child.kill('SIGKILL');
      rmSync(scratch, { recursive: true, force: true });
      socket.release();
      throw new ModelServiceConfigError(`model service priority ${config.priority}: ${(error as NodeJS.ErrnoException).code ?? String(error)} (below 0 needs root or CAP_SYS_NICE)`);
    }
  }
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '' && !line.startsWith('MODEL_SERVICE_ERROR')) config.log?.(line);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let ready: { socket: string; port: number | null };
  try {
    ready = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /^MODEL_SERVICE_READY (.*)$/m.exec(out);
        if (match) resolve(JSON.parse(match[1]));
      });
      void exited.then((code) => {
        const reason = /MODEL_SERVICE_ERROR (.*)/.exec(stderr)?.[1] ?? `exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`;
        reject(new ModelServiceConfigError(reason));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    socket.release();
    throw error;
  } finally {
    // the child has read the script once it is ready: nothing is left even if this process is killed later
    rmSync(scratch, { recursive: true, force: true });
  }
  let closed: Promise<void> | null = null;
  return {
    socketPath: ready.socket,
    port: ready.port,
    journalPath,
    script,
    stats: () => statsFromJournal(readModelJournal(journalPath).entries, slots, Number(process.hrtime.bigint() - startedNs) / 1e6),
    close: () => {
      closed ??= (async () => {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
        socket.release();
      })();
      return closed;
    },
  };
}
