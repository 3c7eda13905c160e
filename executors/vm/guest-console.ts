/**
 * The host side of the guest's serial console, between spawnTrial's raw lines and the trial:
 * - stdin: host stdin travels over the serial console into a tty in the guest. The init says
 *   `SANDBENCH_STDIN_OPEN` once the tty is ready (echo off) and just before the task starts; writes
 *   made earlier are queued until then, because a UART that is not yet set up drops input. Closing
 *   stdin sends ^D, which a canonical-mode tty turns into end-of-file for the reader.
 * - the init's epilogue starts with a newline so `REFERENCE_EXIT` begins a line even when the task's
 *   last output had none; when the task's output did end with a newline, that newline is an empty
 *   line of ours, dropped here so the trial sees exactly the task's lines.
 * - after `REFERENCE_EXIT` only the guest kernel speaks ("reboot: Restarting system", KERN_EMERG,
 *   which loglevel=1 still shows): those console lines are not the task's and are hidden.
 * Protocol lines (`SANDBENCH_STDIN_OPEN`) are hidden; REFERENCE_EXIT stays (the VM marker protocol).
 */
import type { OutputLine, RunningTrial } from '../../harness/contracts/executor.ts';

export const STDIN_OPEN_LINE = 'SANDBENCH_STDIN_OPEN';
const TTY_EOF = '\x04';
/** Lines the init prints right after its leading newline. */
const EPILOGUE = /^(REFERENCE_EXIT -?\d+|SANDBENCH_GUEST_OOM \d+)\s*$/;
const EXIT_LINE = /^REFERENCE_EXIT -?\d+\s*$/;

const isStdout = (line: OutputLine) => line.stream === 'stdout';

export function withGuestConsole(running: RunningTrial): RunningTrial {
  const visible: OutputLine[] = [];
  const listeners: ((line: OutputLine) => void)[] = [];
  let open = false;
  let queued = '';
  let closeRequested = false;
  /** An empty stdout line held back until we know whether the epilogue follows it. */
  let heldEmpty: OutputLine | null = null;
  let exited = false;

  const publish = (line: OutputLine) => {
    visible.push(line);
    for (const listener of listeners) listener(line);
  };
  const close = () => {
    running.writeStdin(TTY_EOF);
    running.closeStdin();
  };
  const openStdin = () => {
    open = true;
    if (queued) running.writeStdin(queued);
    queued = '';
    if (closeRequested) close();
  };

  running.onLine((line) => {
    if (!isStdout(line)) return publish(line);
    if (exited) return;
    if (line.text.trim() === STDIN_OPEN_LINE) return openStdin();
    if (heldEmpty) {
      const held = heldEmpty;
      heldEmpty = null;
      if (!EPILOGUE.test(line.text)) publish(held);
    }
    if (line.text === '') heldEmpty = line;
    else publish(line);
    if (EXIT_LINE.test(line.text)) exited = true;
  });
  // No epilogue came (the VM died): the held line was the task's own.
  void running.exit.then(() => {
    if (heldEmpty) publish(heldEmpty);
    heldEmpty = null;
  });

  return {
    tSpawnNs: running.tSpawnNs,
    timing: running.timing,
    lines: visible,
    onLine(listener) {
      for (const line of visible) listener(line);
      listeners.push(listener);
    },
    writeStdin(text) {
      if (open) running.writeStdin(text);
      else queued += text;
    },
    closeStdin() {
      if (open) close();
      else closeRequested = true;
    },
    exit: running.exit,
    kill: (reason) => running.kill(reason),
    rootPids: () => running.rootPids(),
  };
}
