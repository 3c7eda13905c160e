/**
 * Benchmark backends for `npm run bench -- harness-scale` (issue 33): a sandbox stand-in that costs
 * nothing, so what a rollout cell spends is the harness's own work. Never registered in
 * executors/registry.ts and never a result arm: only bench/harness-scale.bench.ts hands them to a
 * run, through its own wiring.
 *
 * - `bench-recorder` runs every trial on the real `host` backend and keeps, per model-script task
 *   (a task and its right or wrong path), what the harness saw: the agent's output lines and exit,
 *   the collected candidate files with their bytes, and the scoring run's lines and exit.
 * - `bench-standin` replays those recordings: staging copies nothing, a launch spawns no process
 *   (its exit fires after a fixed hold, so C rollouts really are in flight at once), collect hands
 *   back the recorded files from memory. A trial that is no attempt's (the solvability pre-pass,
 *   once per run before any cell, its verdicts cached) runs on the real host backend. Everything around it is the real rollout loop: the cell's
 *   workers, budget and model service, scratch dirs, candidate extraction, trajectory parse, the
 *   store, the scoring workspace (cp -a through the launcher), score parsing, rm -rf, the journal.
 *
 * Replaying real output (rather than inventing it) keeps the scoring pipeline honest: the evaluator
 * parses what a real scoring run printed, so rewards equal the recording run's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { sandboxTraits } from '../harness/backends.ts';
import type { CandidateFiles, ExecutorImplementation, ExitInfo, OutputLine, RunningTrial, TaskCommand, TrialContext } from '../harness/contracts/executor.ts';
import type { ExecutorDescriptor } from '../executors/backend-descriptor.ts';
import { hostBackend } from '../executors/backends/host.ts';

export const STANDIN_BACKEND = 'bench-standin';
export const RECORDER_BACKEND = 'bench-recorder';

interface RecordedRun {
  lines: { stream: OutputLine['stream']; text: string }[];
  exitCode: number | null;
}

/** What one model-script task's attempt looked like on a real sandbox. */
interface Recording {
  agent: RecordedRun;
  /** Changed paths as collect() listed them, with the bytes of those that exist (base64). */
  changed: string[];
  files: Record<string, string>;
  scoring: RecordedRun | null;
}

export type Recordings = Record<string, Recording>;

const SCORING_SUFFIX = '-score';

/** The model-script task an attempt answers (its route /t/<task>/a/<attempt>): the key of its recording. */
function scriptTaskOf(task: TaskCommand): string | null {
  const match = /^\/t\/([^/]+)\/a\//.exec(task.env.SANDBENCH_MODEL_ROUTE ?? '');
  return match ? decodeURIComponent(match[1]!) : null;
}

/** Which agent attempt a trial belongs to: the scoring trial is `<agent trial>-score` (rollout-attempt.ts). */
const attemptTrialOf = (trial: TrialContext) => (trial.trialId.endsWith(SCORING_SUFFIX) ? trial.trialId.slice(0, -SCORING_SUFFIX.length) : trial.trialId);
const isScoring = (trial: TrialContext) => trial.trialId.endsWith(SCORING_SUFFIX);

/** Records what the real host backend produced, per script task (first attempt of each wins). */
export class RecordingStore {
  readonly recordings: Recordings = {};
  private readonly keyOfTrial = new Map<string, string>();

  descriptor(): ExecutorDescriptor {
    return { name: RECORDER_BACKEND, summary: 'benchmark only: the host backend, recording what each rollout produced', traits: hostBackend.traits, create: (variant) => this.wrap(hostBackend.create(variant)) };
  }

  save(path: string): void {
    writeFileSync(path, JSON.stringify(this.recordings));
  }

  private wrap(inner: ExecutorImplementation): ExecutorImplementation {
    const store = this;
    return {
      ...inner,
      backend: RECORDER_BACKEND,
      async launch(trial, task) {
        const running = await inner.launch(trial, task);
        const key = isScoring(trial) ? store.keyOfTrial.get(attemptTrialOf(trial)) : scriptTaskOf(task);
        if (key && !isScoring(trial)) store.keyOfTrial.set(trial.trialId, key);
        void running.exit.then((exit) => key && store.keep(key, isScoring(trial), { lines: running.lines.map(({ stream, text }) => ({ stream, text })), exitCode: exit.exitCode }));
        return running;
      },
      async collect(trial, binding) {
        const collected = await inner.collect(trial, binding);
        const key = store.keyOfTrial.get(trial.trialId);
        if (key && !store.recordings[key]?.changed.length) {
          const files: Record<string, string> = {};
          for (const path of collected.changed) {
            const bytes = await collected.read(path);
            if (bytes) files[path] = bytes.toString('base64');
          }
          const entry = store.recordings[key];
          if (entry) Object.assign(entry, { changed: collected.changed, files });
        }
        return collected;
      },
    };
  }

  private keep(key: string, scoring: boolean, run: RecordedRun): void {
    const entry = (this.recordings[key] ??= { agent: run, changed: [], files: {}, scoring: null });
    if (scoring) entry.scoring ??= run;
  }
}

/** A launch that spawns nothing: its recorded lines arrive and it exits after `holdMs` (or when killed). */
function heldRun(run: RecordedRun, holdMs: number): RunningTrial {
  const tSpawnNs = process.hrtime.bigint();
  const lines: OutputLine[] = [];
  const listeners: ((line: OutputLine) => void)[] = [];
  let finish!: (exit: ExitInfo) => void;
  const exit = new Promise<ExitInfo>((resolve) => (finish = resolve));
  const timer = setTimeout(() => {
    const tNs = process.hrtime.bigint();
    for (const { stream, text } of run.lines) {
      const line = { stream, text, tNs };
      lines.push(line);
      for (const listener of listeners) listener(line);
    }
    finish({ exitCode: run.exitCode, signal: null, timedOut: false, tExitNs: tNs });
  }, holdMs);
  return {
    tSpawnNs,
    lines,
    onLine(listener) {
      lines.forEach(listener);
      listeners.push(listener);
    },
    writeStdin() {},
    closeStdin() {},
    exit,
    async kill() {
      clearTimeout(timer);
      finish({ exitCode: null, signal: 'SIGKILL', timedOut: false, tExitNs: process.hrtime.bigint() });
    },
    rootPids: () => [],
    timing: { path: 'node', fallback_reason: 'benchmark stand-in: no process is spawned' },
  };
}

export interface StandinOptions {
  recordings: Recordings;
  /** How long each agent sandbox "runs" (so C attempts overlap), read at each launch; scoring sandboxes exit at once. */
  agentHoldMs(): number;
}

/** The stand-in: replays recordings, spawns nothing, copies nothing. */
export function standinDescriptor(options: StandinOptions): ExecutorDescriptor {
  const keyOfTrial = new Map<string, string>();
  const recordingOf = (key: string | undefined | null): Recording => {
    const found = key ? options.recordings[key] : undefined;
    if (!found) throw new Error(`${STANDIN_BACKEND}: no recording for script task "${key}" (the recording run did not cover it; give it more attempts)`);
    return found;
  };
  const create = (variant: string | null): ExecutorImplementation => {
    const real = hostBackend.create(null);
    return {
      backend: STANDIN_BACKEND,
      variant,
      async probe() {
        return { backend: STANDIN_BACKEND, available: true, version: 'benchmark stand-in (replays recorded host rollouts; no process)', details: {} };
      },
      async prepare() {},
      async stageWorkspace(trial) {
        return { hostPath: trial.trialDir, claimsStaging: false };
      },
      async launch(trial, task) {
        if (isScoring(trial)) return heldRun(recordingOf(keyOfTrial.get(attemptTrialOf(trial))).scoring ?? { lines: [], exitCode: null }, 0);
        const key = scriptTaskOf(task);
        if (key === null) {
          // Not an attempt (the solvability pre-pass scoring baselines and gold solutions, once per run and cached): the real host backend runs it.
          await real.stageWorkspace(trial);
          return real.launch(trial, task);
        }
        keyOfTrial.set(trial.trialId, key);
        return heldRun(recordingOf(key).agent, options.agentHoldMs());
      },
      async collect(trial): Promise<CandidateFiles> {
        const recording = recordingOf(keyOfTrial.get(trial.trialId));
        return { changed: [...recording.changed], read: async (path) => (recording.files[path] === undefined ? null : Buffer.from(recording.files[path]!, 'base64')), facts: {} };
      },
      async finishTrial(trial) {
        if (!isScoring(trial)) keyOfTrial.delete(trial.trialId);
        await real.finishTrial(trial);
      },
      async teardown() {},
    };
  };
  return {
    name: STANDIN_BACKEND,
    summary: 'benchmark only: a sandbox that costs nothing (replays recorded host rollouts); never a result arm',
    traits: sandboxTraits({ launch: 'direct', memoryAccounting: 'cgroup' }),
    create,
  };
}

export function loadRecordings(path: string): Recordings {
  return JSON.parse(readFileSync(path, 'utf8')) as Recordings;
}
