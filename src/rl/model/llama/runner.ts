// A thin stateful driver over the prefill and decode graphs on one OrtRuntime: ragged batches,
// a KV cache that grows by chunks (a generated token, or a whole collaborator reply appended in one
// call), and checked feeds. It holds no sampling policy; the inference engine and the rollout loop
// build on it. The session owner (this class) disposes its sessions.
import type { ManagedSession, OrtRuntime, TensorData } from '../../runtime/ort.ts';
import type { ModelConfig } from './config.ts';
import { causalBias, leftPad, positionsFor, SequenceError, tokenFeeds } from './feeds.ts';
import { buildGraph, pastKeyName, pastValueName, presentKeyName, presentValueName } from './graphs.ts';
import type { ParamSource } from './params.ts';
import type { HeadsSpec, LoraSpec } from './weights.ts';

/** The KV cache of a batch after some calls. */
export interface KvState {
  batch: number;
  /** Cached positions T (including padding slots). */
  length: number;
  /** [batch × length]: 1 where a cached slot holds a real token. */
  keyMask: Uint8Array;
  /** Next RoPE position of each row (its count of real tokens). */
  next: Int32Array;
  /** past_key_values.{l}.key/value feeds, [batch, nKvHeads, length, headDim]. */
  past: Record<string, TensorData>;
}

/** Logits at each row's last new token, and the cache after the call. */
export interface StepResult {
  /** [batch × vocab] */
  logits: Float32Array;
  /** [batch], value head at the last new token (critic graphs). */
  values?: Float32Array;
  state: KvState;
}

export interface RunnerOptions {
  lora?: LoraSpec;
  heads?: HeadsSpec;
  /** Session label prefix for errors. */
  label?: string;
  /** Token id written into padding slots (never attended). Default 0. */
  padId?: number;
}

export class LlamaRunner {
  /** Feeds added to every run: LoRA matrices, or parameters placed as 'input'. */
  extraFeeds: Record<string, TensorData> = {};

  private constructor(
    readonly cfg: ModelConfig,
    private readonly prefillSession: ManagedSession,
    private readonly decodeSession: ManagedSession,
    private readonly padId: number,
  ) {}

  /** Builds the prefill and decode graphs and opens their sessions on `runtime`. */
  static async create(runtime: OrtRuntime, cfg: ModelConfig, params: ParamSource, opts: RunnerOptions = {}): Promise<LlamaRunner> {
    const label = opts.label ?? 'llama';
    const common = { params, lora: opts.lora, heads: opts.heads };
    const pre = buildGraph(cfg, { kind: 'prefill', ...common });
    const dec = buildGraph(cfg, { kind: 'decode', ...common });
    const ps = await runtime.createSession(pre.bytes, { label: `${label}.prefill` });
    try {
      const ds = await runtime.createSession(dec.bytes, { label: `${label}.decode` });
      return new LlamaRunner(cfg, ps, ds, opts.padId ?? 0);
    } catch (e) {
      await ps.dispose();
      throw e;
    }
  }

  /** Runs whole prompts (rows may differ in length; each must be non-empty). */
  async prefill(rows: readonly (readonly number[])[]): Promise<StepResult> {
    const b = leftPad(rows, this.padId);
    const { positions, next } = positionsFor(b.mask, b.batch, b.seq);
    const feeds = tokenFeeds(this.cfg, b.ids, positions, causalBias(b.mask, b.batch, b.seq, b.seq), b.batch, b.seq);
    const out = await this.prefillSession.run({ ...feeds, ...this.extraFeeds });
    return this.result(out, { batch: b.batch, length: b.seq, keyMask: b.mask, next, past: {} });
  }

  /** Appends `rows[b]` (non-empty, ragged allowed) to each row's cache. */
  async extend(state: KvState, rows: readonly (readonly number[])[]): Promise<StepResult> {
    if (rows.length !== state.batch) throw new SequenceError('shape', `extend: ${rows.length} rows for a batch of ${state.batch}`);
    const c = leftPad(rows, this.padId);
    const total = state.length + c.seq;
    const keyMask = new Uint8Array(state.batch * total);
    for (let r = 0; r < state.batch; r++) {
      keyMask.set(state.keyMask.subarray(r * state.length, (r + 1) * state.length), r * total);
      keyMask.set(c.mask.subarray(r * c.seq, (r + 1) * c.seq), r * total + state.length);
    }
    const { positions, next } = positionsFor(c.mask, c.batch, c.seq, state.next);
    const feeds = tokenFeeds(this.cfg, c.ids, positions, causalBias(keyMask, c.batch, c.seq, total), c.batch, c.seq);
    const out = await this.decodeSession.run({ ...feeds, ...state.past, ...this.extraFeeds });
    return this.result(out, { batch: state.batch, length: total, keyMask, next, past: {} });
  }

  /** One new token per row. */
  decode(state: KvState, tokens: readonly number[]): Promise<StepResult> {
    return this.extend(
      state,
      tokens.map((t) => [t]),
    );
  }

  private result(out: Record<string, TensorData>, state: KvState): StepResult {
    for (let l = 0; l < this.cfg.nLayers; l++) {
      state.past[pastKeyName(l)] = out[presentKeyName(l)];
      state.past[pastValueName(l)] = out[presentValueName(l)];
    }
    const res: StepResult = { logits: out.logits.data as Float32Array, state };
    if (out.values) {
      // values [B, S]: keep each row's last position
      const [b, s] = out.values.dims;
      const v = out.values.data as Float32Array;
      res.values = Float32Array.from({ length: b }, (_, r) => v[r * s + s - 1]);
    }
    return res;
  }

  async dispose(): Promise<void> {
    await this.prefillSession.dispose();
    await this.decodeSession.dispose();
  }
}
