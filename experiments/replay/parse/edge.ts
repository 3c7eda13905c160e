/**
 * Shared edge helpers for the native parsers: decode JSON / JSONL with positions in the error, and
 * validate a value against a zod schema, turning every failure into a one-line ReplayError.
 */
import type { z } from 'zod';
import { ReplayError } from '../replay-error.ts';

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

export function parseJsonDocument(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReplayError('malformed_json', `${what} is not valid JSON (${reason}); a truncated write is the usual cause`);
  }
}

export function parseJsonLines(text: string, what: string): JsonlLine[] {
  const out: JsonlLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch {
      const last = i === lines.length - 1 && !text.endsWith('\n');
      throw new ReplayError('malformed_json', `${what} line ${i + 1} is not valid JSON${last ? ' (last line has no newline: truncated write?)' : ''}`);
    }
  }
  if (out.length === 0) throw new ReplayError('malformed_json', `${what} is empty`);
  return out;
}

/** Validate `value` with `schema`; on failure name the location and the first issue. */
export function expectShape<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
  throw new ReplayError('schema_mismatch', `${where}${path}: ${issue.message}`);
}

/** Semver major of a version string, or null when it is not `N.N...`. */
export function majorOf(version: string): number | null {
  const match = /^(\d+)\.\d+/.exec(version);
  return match ? Number(match[1]) : null;
}

/** Refuse a recorded version whose major differs from the modelled release (a different schema generation). */
export function requireSameMajor(agent: string, recorded: string, modelled: string, field: string): void {
  if (majorOf(recorded) === null || majorOf(recorded) !== majorOf(modelled)) {
    throw new ReplayError('unsupported_version', `${agent} ${field} "${recorded}" is not supported (this parser models ${modelled}, major ${majorOf(modelled)})`);
  }
}
