/**
 * Progress: a cli-progress bar with done/failed/warmup counts and ETA on a TTY; one plain line per
 * trial when not a TTY (CI logs keep every line, a redrawn bar would be noise there).
 */
import cliProgress from 'cli-progress';
import type { TrialRecord } from '../journal/trial-record.ts';
import { armLabel, INFRASTRUCTURE_FAILURES } from '../journal/trial-record.ts';

const REASON_CHARS = 300;

/**
 * An infrastructure failure's first note (a runtime's own error, e.g. crun refusing a cgroup v1
 * hybrid host), the first time it is seen: the reader learns why at once, and a failing arm does not
 * repeat the same message on every trial.
 */
function reasonOnce(seen: Set<string>) {
  return (record: TrialRecord): string => {
    const note = record.failure_category && INFRASTRUCTURE_FAILURES.has(record.failure_category) ? record.notes[0] : undefined;
    if (!note || seen.has(note)) return '';
    seen.add(note);
    return ` — ${note.slice(0, REASON_CHARS)}`;
  };
}

export interface ProgressReporter {
  trialDone(record: TrialRecord): void;
  stop(): void;
}

export function createProgress(total: number, alreadyDone: number, stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  let done = alreadyDone;
  let failed = 0;
  let warmups = 0;
  const reason = reasonOnce(new Set());
  const count = (record: TrialRecord) => {
    done++;
    if (record.outcome !== 'ok') failed++;
    if (record.warmup) warmups++;
  };
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: 'trials {bar} {value}/{total} | failed {failed} | warmup {warmups} | ETA {eta_formatted} | {last}', stream, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, done, { failed, warmups, last: '' });
    return {
      trialDone(record) {
        count(record);
        bar.update(done, { failed, warmups, last: `${record.trial_id} ${record.outcome}` });
        const why = reason(record);
        if (why) stream.write(`\n${record.trial_id} ${record.failure_category}${why}\n`);
      },
      stop: () => bar.stop(),
    };
  }
  const started = Date.now();
  return {
    trialDone(record) {
      count(record);
      const elapsed = (Date.now() - started) / 1000;
      const eta = done > alreadyDone ? Math.round((elapsed / (done - alreadyDone)) * (total - done)) : 0;
      const timing = record.ready_ms !== null ? ` ready=${record.ready_ms.toFixed(2)}ms` : record.completion_ms !== null ? ` completion=${record.completion_ms.toFixed(2)}ms` : '';
      stream.write(`[${done}/${total}] ${record.trial_id} ${armLabel(record.arm)} ${record.outcome}${record.failure_category ? `(${record.failure_category})` : ''}${timing} failed=${failed} eta=${eta}s${reason(record)}\n`);
    },
    stop() {},
  };
}
