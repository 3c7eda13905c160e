/**
 * Optional sidecar of the model journal: the body of every generation request (Responses, Chat
 * Completions, Messages), one JSON line each, joined to the journal by `seq` and `request_sha256`.
 * Off by default (bodies of agent CLIs are 10-90 KB each); a kind turns it on when it must judge
 * what a client sent, e.g. whether a resumed CLI sent the replayed observation or the historical one
 * (issue 19). Written with writeSync as each body arrives, fsynced on close.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { z } from 'zod';

export const REQUEST_BODIES_SCHEMA = 'sandbench-model-request-body/1';

export const RequestBodyEntrySchema = z
  .object({
    schema: z.literal(REQUEST_BODIES_SCHEMA),
    seq: z.number().int().min(1),
    attempt: z.string().nullable(),
    endpoint: z.string(),
    request_sha256: z.string(),
    /** The body as UTF-8 text, exactly as received. */
    body: z.string(),
  })
  .strict();
export type RequestBodyEntry = z.infer<typeof RequestBodyEntrySchema>;

export class RequestBodies {
  private fd: number | null;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }
  append(entry: Omit<RequestBodyEntry, 'schema'>): void {
    if (this.fd === null) return;
    writeSync(this.fd, `${JSON.stringify({ schema: REQUEST_BODIES_SCHEMA, ...entry })}\n`);
  }
  close(): void {
    if (this.fd === null) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}

/** Every complete line (a torn last line, from a request still arriving, is skipped); a bad middle line throws naming it. */
export function readRequestBodies(path: string): RequestBodyEntry[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const entries: RequestBodyEntry[] = [];
  lines.forEach((line, index) => {
    if (line === '') return;
    try {
      entries.push(RequestBodyEntrySchema.parse(JSON.parse(line)));
    } catch (error) {
      if (index === lines.length - 1 && !text.endsWith('\n')) return;
      throw new Error(`${path}: line ${index + 1} is not a request-body entry: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  });
  return entries;
}
