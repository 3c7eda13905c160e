/** Runs the sandbench CLI in-process (the same `main` bin/sandbench.mjs calls) and captures exit code and output. */
import { vi } from 'vitest';
import { main } from '../../cli/main.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  const previous = process.exitCode;
  process.exitCode = 0;
  try {
    await main(['node', 'sandbench', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = previous;
  }
}
