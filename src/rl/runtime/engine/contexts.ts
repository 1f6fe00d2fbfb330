// KV reuse across calls: the contexts (prompt + reply) that generate requests asked to keep, each
// under its caller's key, so the next turn of an episode prefills only what is new (the reply's
// closing token, the observation and <|agent|>) when its prompt starts with the kept ids. A kept
// context is exact for any prompt that shares its leading ids, because a causal model's keys and
// values at a position depend only on the tokens up to it; the same model and adapter weights are
// also required (an entry records the adapter feeds it was computed with, by identity, so a replaced
// or changed adapter never matches). Bounded: least recently kept entries go first beyond a byte
// budget; an entry is consumed by the call that looks it up (that call keeps its new context).
import type { AdapterFeeds } from './adapters.ts';
import type { RowContext } from './kv.ts';

/** Default budget of kept contexts per model: 128 MiB (≈ 128 contexts of 256 tokens on the shipped policy). */
export const CONTEXT_BUDGET_BYTES = 128 * 1024 * 1024;

/** A kept context: its token ids and, for each, the cached keys and values. */
export interface KeptContext extends RowContext {
  ids: number[];
  /** The adapter feeds the cache was computed under. */
  feeds: AdapterFeeds;
}

/** Tokens of `prompt` whose cache `kept` can supply: the common leading ids, leaving at least one token to run. */
export function reusable(kept: readonly number[], prompt: readonly number[]): number {
  const max = Math.min(kept.length, prompt.length - 1);
  let n = 0;
  while (n < max && kept[n] === prompt[n]) n++;
  return n;
}

function bytesOf(c: KeptContext): number {
  let b = 0;
  for (const a of Object.values(c.past)) b += a.byteLength;
  return b;
}

export class ContextPool {
  private readonly entries = new Map<string, KeptContext>();
  private bytes = 0;

  constructor(readonly budgetBytes = CONTEXT_BUDGET_BYTES) {}

  /** The context kept under `key` if it was computed under `feeds`; the entry is removed either way. */
  take(key: string, feeds: AdapterFeeds): KeptContext | null {
    const c = this.entries.get(key);
    if (!c) return null;
    this.delete(key);
    return c.feeds === feeds ? c : null;
  }

  /** Keeps `c` under `key` (replacing what was there), evicting the least recently kept beyond the budget. */
  put(key: string, c: KeptContext): void {
    this.delete(key);
    const size = bytesOf(c);
    if (size > this.budgetBytes) return;
    this.entries.set(key, c);
    this.bytes += size;
    for (const [k] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.delete(k);
    }
  }

  delete(key: string): void {
    const c = this.entries.get(key);
    if (!c) return;
    this.entries.delete(key);
    this.bytes -= bytesOf(c);
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Entries and bytes kept now (tests, diagnostics). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
