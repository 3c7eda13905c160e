/**
 * Host stdin for a VM task travels over the serial console into a tty in the guest. The guest init
 * says `SANDBENCH_STDIN_OPEN` once the tty is ready (echo off) and just before the task starts;
 * writes made earlier are queued until then, because a UART that is not yet set up drops input.
 * Closing stdin sends ^D, which a canonical-mode tty turns into end-of-file for the reader.
 * The protocol line itself is hidden from the trial's output lines.
 */
import type { OutputLine, RunningTrial } from '../executor.ts';

export const STDIN_OPEN_LINE = 'SANDBENCH_STDIN_OPEN';
const TTY_EOF = '\x04';

const isProtocolLine = (line: OutputLine) => line.stream === 'stdout' && line.text.trim() === STDIN_OPEN_LINE;

export function withGuestStdin(running: RunningTrial): RunningTrial {
  const visible: OutputLine[] = [];
  const listeners: ((line: OutputLine) => void)[] = [];
  let open = false;
  let queued = '';
  let closeRequested = false;
  const close = () => {
    running.writeStdin(TTY_EOF);
    running.closeStdin();
  };
  running.onLine((line) => {
    if (isProtocolLine(line)) {
      open = true;
      if (queued) running.writeStdin(queued);
      queued = '';
      if (closeRequested) close();
      return;
    }
    visible.push(line);
    for (const listener of listeners) listener(line);
  });
  return {
    tSpawnNs: running.tSpawnNs,
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
