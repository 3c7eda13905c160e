/** One compact JSON value per line, newline-terminated (the JSONL the agents write). */
export function jsonl(events: readonly unknown[]): string {
  return events.map((event) => JSON.stringify(event)).join('\n') + '\n';
}
