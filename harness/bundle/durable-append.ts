/**
 * Appending one line to a bundle's JSONL side file (interrupted.jsonl, invocations.jsonl) so that it
 * survives a kill or power loss right after: append, then fsync before returning.
 */
import { appendFileSync, closeSync, fsyncSync, openSync } from 'node:fs';

export function appendLineDurably(path: string, record: unknown): void {
  appendFileSync(path, `${JSON.stringify(record)}\n`);
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
