/** Turns timestamped output chunks into lines; a line carries the stamp of the chunk that completed it. */
import type { OutputLine } from '../../harness/contracts/executor.ts';

export class LineSplitter {
  private pending = '';
  constructor(
    private readonly stream: OutputLine['stream'],
    private readonly emit: (line: OutputLine) => void,
  ) {}

  push(chunk: Buffer | string, tNs: bigint): void {
    const text = this.pending + chunk.toString();
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    for (const part of parts) this.emit({ stream: this.stream, text: part.replace(/\r$/, ''), tNs });
  }

  flush(tNs: bigint): void {
    if (this.pending.length > 0) this.emit({ stream: this.stream, text: this.pending.replace(/\r$/, ''), tNs });
    this.pending = '';
  }
}

/** Lines so far plus listeners that also get the lines already seen. */
export class LineLog {
  readonly lines: OutputLine[] = [];
  private readonly listeners: ((line: OutputLine) => void)[] = [];
  readonly stdout = new LineSplitter('stdout', (line) => this.add(line));
  readonly stderr = new LineSplitter('stderr', (line) => this.add(line));

  add(line: OutputLine): void {
    this.lines.push(line);
    for (const listener of this.listeners) listener(line);
  }

  onLine(listener: (line: OutputLine) => void): void {
    for (const line of this.lines) listener(line);
    this.listeners.push(listener);
  }

  flush(tNs: bigint): void {
    this.stdout.flush(tNs);
    this.stderr.flush(tNs);
  }
}
