// Autoregressive generation with a KV cache: one prefill of the B distinct prompts (ragged,
// left-padded), each prompt's cache repeated for its K samples, then one decode run per step over
// the rows still generating. Sampling is seeded per sample index (the same seed, prompt and sample
// index give the same tokens whatever else is in the batch), so batched equals one at a time.
// With cache keys (KV reuse across turns, engine/contexts.ts) the prompts whose leading ids a kept
// context supplies skip the prefill: the kept caches are put back into one batch and only the rest
// of each prompt runs, through the decode graph; each finished row's context is kept for next time.
import { headDim } from '../../model/llama/config.ts';
import { Rng } from '../../util/rng.ts';
import type { AdapterFeeds } from './adapters.ts';
import { reusable, type KeptContext } from './contexts.ts';
import { assembleRows, dropRows, HOST_HEADROOM, repeatIndex, rowContext, selectMatrixRows, selectRows } from './kv.ts';
import type { LoadedLm } from './lm.ts';
import type { Ticket } from './requests.ts';
import type { EngineKv, EngineStep } from './stepper.ts';
import { sampleToken, type SamplingParams } from './sampling.ts';
import type { FinishReason, Generation, TokenEvent, Timing } from './types.ts';

export interface GenerationJob {
  lm: LoadedLm;
  feeds: AdapterFeeds;
  ticket: Ticket;
  /** Token ids of each distinct prompt (checked to fit the context). */
  prompts: number[][];
  /** Samples per prompt. */
  n: number;
  params: SamplingParams;
  /** Per-prompt seeds overriding params.seed (GenerateRequest.seeds). */
  seeds?: readonly number[];
  /** One key per prompt (n = 1): reuse and keep contexts in lm.contexts (GenerateRequest.cacheKeys). */
  cacheKeys?: readonly string[];
  onToken?: (e: TokenEvent) => unknown;
  /** Time already spent before the job (tokenising), for firstTokenMs and totalMs. */
  startedAt: number;
  encodeMs: number;
}

/** The random stream of sample k under `seed`: independent of the prompt and of the batch. */
export function sampleRng(seed: number, k: number): Rng {
  return new Rng(`turnwise/sample/${seed}/${k}`);
}

/** Length of the longest suffix of `text` that is a proper prefix of some stop string (held back while streaming). */
function pendingStopPrefix(text: string, stops: readonly string[]): number {
  let best = 0;
  for (const s of stops) {
    for (let len = Math.min(s.length - 1, text.length); len > best; len--) {
      if (text.endsWith(s.slice(0, len))) {
        best = len;
        break;
      }
    }
  }
  return best;
}

interface Row {
  prompt: number;
  sample: number;
  rng: Rng;
  tokens: number[];
  logprobs: number[];
  /** Most new tokens this row may take (maxNewTokens, or what the context leaves). */
  budget: number;
  text: string;
  /** Length of the text that later tokens cannot change: up to the last non-byte token. */
  stable: number;
  emitted: number;
  finish: FinishReason | null;
  stop?: string;
}

export async function runGeneration(job: GenerationJob): Promise<{ generations: Generation[]; timing: Timing }> {
  const { lm, params, n, ticket } = job;
  const tok = lm.tokenizer;
  const end = tok.special.end;
  const vocab = lm.cfg.vocabSize;
  const byteToken = lm.byteTokens;
  const banned = params.banSpecial ? lm.bannedSpecial : undefined;
  const bannedEarly = params.minNewTokens > 0 ? Uint8Array.from(banned ?? new Uint8Array(vocab)).fill(1, end, end + 1) : banned;
  const rows: Row[] = [];
  job.prompts.forEach((ids, p) => {
    for (let k = 0; k < n; k++) {
      const budget = Math.min(params.maxNewTokens, lm.cfg.maxSeq - ids.length);
      rows.push({
        prompt: p,
        sample: k,
        rng: sampleRng(job.seeds?.[p] ?? params.seed, k),
        tokens: [],
        logprobs: [],
        budget,
        text: '',
        stable: 0,
        emitted: 0,
        finish: null,
      });
    }
  });
  const timing: Timing = { encodeMs: job.encodeMs, prefillMs: 0, decodeMs: 0, sampleMs: 0, firstTokenMs: 0, totalMs: 0, decodeSteps: 0 };
  const runner = lm.runner;

  ticket.check();
  let t = performance.now();
  const keys = job.cacheKeys;
  const kept: (KeptContext | null)[] = keys ? keys.map((k) => lm.contexts.take(k, job.feeds)) : [];
  const reused = job.prompts.map((ids, p) => (kept[p] ? reusable(kept[p].ids, ids) : 0));
  runner.extraFeeds = job.feeds; // read synchronously by the call below, so concurrent requests cannot mix adapters
  let step: EngineStep;
  if (reused.some((r) => r > 0)) {
    const names = Object.keys(kept.find((c) => c)!.past);
    const cache = assembleRows(
      kept,
      reused,
      names,
      lm.cfg.nKvHeads,
      headDim(lm.cfg),
      runner.mode === 'host' ? Math.max(...job.prompts.map((ids, p) => ids.length - reused[p])) + HOST_HEADROOM : 0,
    );
    step = await runner.extend(
      cache,
      job.prompts.map((ids, p) => ids.slice(reused[p])),
    );
  } else step = await runner.prefill(job.prompts);
  timing.prefillMs = performance.now() - t;
  // active[i] = index into `rows` of cache row i
  let active = rows.map((_, i) => i);
  let logits = step.logits;
  // The cache may live on the GPU (engine/stepper.ts): every exit path below must release it.
  let state: EngineKv = step.state;
  try {
    if (n > 1) {
      const idx = repeatIndex(job.prompts.length, n);
      const cpu = await runner.toCpu(state);
      state = selectRows(cpu, idx, runner.mode === 'host' ? cpu.used + HOST_HEADROOM : cpu.used);
      logits = selectMatrixRows(logits, vocab, idx);
    }

    for (;;) {
      t = performance.now();
      const next: number[] = [];
      const keep: number[] = [];
      active.forEach((r, i) => {
        const row = rows[r];
        const s = sampleToken(logits.subarray(i * vocab, (i + 1) * vocab), params, row.rng, row.tokens.length < params.minNewTokens ? bannedEarly : banned);
        row.tokens.push(s.token);
        row.logprobs.push(s.logprob);
        if (s.token === end) row.finish = 'end';
        else {
          row.text = tok.decode(row.tokens);
          // A run of byte tokens decodes as a whole (invalid UTF-8 → U+FFFD per byte), so it may still change.
          if (!byteToken[s.token]) row.stable = row.text.length;
          for (const stop of params.stop) {
            const at = row.text.indexOf(stop);
            // Searching the already-cut text keeps the earliest match when two stops appear at once.
            if (at >= 0) {
              row.finish = 'stop';
              row.stop = stop;
              row.text = row.text.slice(0, at);
            }
          }
          if (!row.finish && row.tokens.length >= row.budget) row.finish = 'length';
        }
        if (job.onToken) {
          // Hold back an unfinished run of byte tokens and a possible start of a stop string.
          const visible = row.finish
            ? row.text.length
            : Math.max(row.emitted, Math.min(row.stable, row.text.length - pendingStopPrefix(row.text, params.stop)));
          const delta = row.text.slice(row.emitted, visible);
          row.emitted = visible;
          const ev: TokenEvent = {
            row: r,
            prompt: row.prompt,
            sample: row.sample,
            token: s.token,
            logprob: s.logprob,
            delta,
            ...(row.finish ? { finishReason: row.finish } : {}),
          };
          // A callback across comlink returns a promise; generation does not wait for the page.
          void Promise.resolve(job.onToken(ev)).catch(() => undefined);
        }
        if (!row.finish) {
          next.push(s.token);
          keep.push(i);
        }
      });
      timing.sampleMs += performance.now() - t;
      if (timing.firstTokenMs === 0) timing.firstTokenMs = performance.now() - job.startedAt;
      if (keep.length < active.length) {
        const cpu = await runner.toCpu(state);
        state = cpu;
        if (keys) {
          active.forEach((r, i) => {
            const row = rows[r];
            if (!row.finish) return;
            // the cache holds the prompt and every token but the last, which was never run
            const ctx = rowContext(cpu, i);
            const ids = [...job.prompts[row.prompt], ...row.tokens.slice(0, -1)];
            if (ctx.length === ids.length) lm.contexts.put(keys[row.prompt], { ...ctx, ids, feeds: job.feeds });
          });
        }
        if (!keep.length) break;
        state = dropRows(cpu, keep);
        active = keep.map((i) => active[i]);
      }
      ticket.check();
      t = performance.now();
      runner.extraFeeds = job.feeds;
      step = await runner.decode(state, next);
      timing.decodeMs += performance.now() - t;
      timing.decodeSteps++;
      state = step.state;
      logits = step.logits;
    }
  } finally {
    runner.release(state);
  }
  timing.totalMs = performance.now() - job.startedAt;
  const generations = rows.map((row): Generation => ({
    prompt: row.prompt,
    sample: row.sample,
    text: row.text,
    tokenIds: row.tokens,
    logprobs: row.logprobs,
    promptTokens: job.prompts[row.prompt].length,
    completionTokens: row.tokens.length,
    finishReason: row.finish as FinishReason,
    reusedTokens: reused[row.prompt],
    ...(row.stop !== undefined ? { stop: row.stop } : {}),
  }));
  return { generations, timing };
}
