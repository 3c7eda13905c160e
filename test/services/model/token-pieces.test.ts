/** Pacing units: a payload split into at most `tokens` pieces whose last piece completes the last token. */
import { expect, it } from 'vitest';
import { defaultTokens } from '../../../services/model/decide.ts';
import { tokenPieces } from '../../../services/model/wire/frames.ts';

it('splits a payload into one piece per token, the last completing token n-1', () => {
  const pieces = tokenPieces('{"cmd":"printf fixture > marker.txt"}', defaultTokens('{"cmd":"printf fixture > marker.txt"}'));
  expect(pieces.map((piece) => piece.text).join('')).toBe('{"cmd":"printf fixture > marker.txt"}');
  expect(pieces.map((piece) => piece.tokenIndex)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
});

it('a token count above the payload length keeps the full paced time in fewer pieces', () => {
  const pieces = tokenPieces('done', 10);
  expect(pieces.map((piece) => piece.text)).toEqual(['d', 'o', 'n', 'e']);
  expect(pieces.at(-1)!.tokenIndex).toBe(9);
  expect(tokenPieces('', 3)).toEqual([{ text: '', tokenIndex: 2 }]);
  expect(tokenPieces('héllo wörld', 2).map((piece) => piece.text).join('')).toBe('héllo wörld');
});
