// The CLI tests run commands in-process: stdout captured (the command's output, often --json),
// stderr muted (progress lines).
import { vi } from 'vitest';

/** Runs fn with stdout captured and stderr muted; its exit code and what it printed to stdout. */
export async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    return { code: await fn(), out };
  } finally {
    spy.mockRestore();
    err.mockRestore();
  }
}
