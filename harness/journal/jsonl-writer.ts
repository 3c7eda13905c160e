/**
 * An append-only JSONL file a local service writes one line per event to (the model service's
 * traffic journal, run-code's request journal). Each line is written with one write() and fsynced off
 * the event loop: a blocking fsync would stall the replies and requests those services are timing. A
 * crash keeps every line the kernel had; close() fsyncs synchronously. The trial journal has stronger guarantees (fsync before
 * the next trial): harness/journal/journal.ts.
 */
import { closeSync, fsync, fsyncSync, openSync, writeSync } from 'node:fs';

export class JsonlWriter<Entry> {
  private fd: number | null;

  /** `what` names the journal in the error for a write after close ("model journal"). */
  constructor(readonly path: string, private readonly what: string) {
    this.fd = openSync(path, 'a');
  }

  append(entry: Entry): void {
    if (this.fd === null) throw new Error(`${this.path}: ${this.what} already closed`);
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    fsync(this.fd, () => undefined);
  }

  close(): void {
    if (this.fd === null) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}
