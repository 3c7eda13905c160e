/**
 * The journal is the truth: one JSON line per finished trial, appended and fsynced before the
 * next trial starts (hyperfine and ReBench persist incrementally for the same reason). Every CSV is
 * derived from it and can be regenerated.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { TrialRecordSchema, type TrialRecord } from './trial-record.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';

/** The journal's file name in a bundle (harness/bundle/layout.ts). */
export const JOURNAL_FILE = BUNDLE_FILES.journal;

export class JournalWriter {
  private readonly fd: number;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }
  /**
   * All of the line, or none of it: a write that fails part-way (a full disk returns a short count,
   * then ENOSPC) is cut back to the last whole line before the error is thrown, so the journal never
   * holds a torn line that a later append would bury mid-file.
   */
  append(record: TrialRecord): void {
    const line = Buffer.from(`${JSON.stringify(TrialRecordSchema.parse(record))}\n`);
    const before = fstatSync(this.fd).size;
    try {
      for (let written = 0; written < line.length; ) written += writeSync(this.fd, line, written);
      fsyncSync(this.fd);
    } catch (error) {
      // Truncating frees blocks, so it works on a full disk too.
      ftruncateSync(this.fd, before);
      throw error;
    }
  }
  close(): void {
    closeSync(this.fd);
  }
}

export interface JournalContents {
  records: TrialRecord[];
  /** A last line cut short by a crash mid-write: dropped, with this warning. */
  tornTail: string | null;
}

/** Reads a journal. A malformed line in the middle is corruption and throws; a torn last line is dropped with a warning. */
export function readJournal(path: string): JournalContents {
  if (!existsSync(path)) return { records: [], tornTail: null };
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  const records: TrialRecord[] = [];
  let tornTail: string | null = null;
  lines.forEach((line, index) => {
    if (line === '') return;
    const isLast = index === lines.length - 1;
    try {
      records.push(TrialRecordSchema.parse(JSON.parse(line)));
    } catch (error) {
      if (isLast && !endsWithNewline) {
        tornTail = `${path}: dropped a torn last line (${line.length} bytes) left by an interrupted write`;
        return;
      }
      throw new Error(`${path}: line ${index + 1} is not a valid trial record: ${error instanceof Error ? error.message.split('\n')[0] : error}`);
    }
  });
  return { records, tornTail };
}
