/**
 * What a renderer hands the streamer: frames in order, each either sent at once (preamble, closing
 * events) or held until its token's deadline — service start + base_ms + (tokenIndex + 1) × per_token_ms —
 * so a reply streams at a fixed token rate and its service time is base_ms + per_token_ms × tokens.
 */
import type { Decision } from '../decide.ts';

export interface Frame {
  data: string;
  /** Index of the last output token this frame carries; null = not paced (sent as soon as its turn comes). */
  tokenIndex: number | null;
}

export interface Rendered {
  status: number;
  contentType: string;
  frames: Frame[];
}

export interface RenderContext {
  decision: Decision;
  /** Deterministic id stem (from the request digest), so identical requests get byte-identical replies. */
  idStem: string;
  model: string;
  inputTokens: number;
  includeUsage: boolean;
}

export interface Piece {
  text: string;
  tokenIndex: number;
}

/**
 * Split a payload into at most `tokens` non-empty pieces, each tagged with the last token it
 * completes; the final piece completes token `tokens - 1`. A payload shorter than its token count
 * (a `tokens:` override) still takes the full paced time; the text just arrives in fewer pieces.
 */
export function tokenPieces(payload: string, tokens: number): Piece[] {
  const chars = Array.from(payload);
  if (chars.length === 0) return [{ text: '', tokenIndex: tokens - 1 }];
  const count = Math.min(tokens, chars.length);
  const pieces: Piece[] = [];
  for (let index = 0; index < count; index += 1) {
    const from = Math.floor((index * chars.length) / count);
    const to = Math.floor(((index + 1) * chars.length) / count);
    pieces.push({ text: chars.slice(from, to).join(''), tokenIndex: Math.round(((index + 1) * tokens) / count) - 1 });
  }
  return pieces;
}

/** A whole (non-streaming) JSON body, released when its last token is due. */
export function jsonBody(body: unknown, tokens: number): Rendered {
  return { status: 200, contentType: 'application/json', frames: [{ data: JSON.stringify(body), tokenIndex: tokens - 1 }] };
}

/** Fixed creation time in replies (2025-12-01T00:00:00Z): wall time would make identical requests' replies differ; not 0, which some clients treat as missing. */
export const CREATED_AT = 1764547200;
