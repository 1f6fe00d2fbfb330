// The engine's prefill/decode driver over the model core's graphs (model/llama/graphs.ts): ragged
// batches left-padded into one additive attention bias with RoPE positions per row, and a KV cache
// that grows by chunks (a generated token per row, or a whole reply appended in one call). On
// WebGPU the cache stays in GPU memory between decode steps: the graphs' present.* outputs are left
// on the GPU (ORT preferredOutputLocation 'gpu-buffer') and fed back as the next step's
// past_key_values.* unchanged; only the logits (and a critic's values) come back to JS. Row surgery
// (K samples after one prefill, dropping finished rows) needs the cache in JS (engine/kv.ts), so
// `toCpu` downloads it first. Elsewhere (wasm, Node) every tensor is plain data.
// Ownership (STYLE.md point 6): a cache passed to `extend`/`decode` is consumed (its GPU tensors are
// freed once the run that read them has finished, or failed); the caller frees the last one with
// `release`. The stepper owns its two sessions and disposes them.
import { buildGraph, pastKeyName, pastValueName, presentKeyName, presentValueName } from '../../model/llama/graphs.ts';
import { causalBias, leftPad, positionsFor, SequenceError, tokenFeeds } from '../../model/llama/feeds.ts';
import type { ModelConfig } from '../../model/llama/config.ts';
import type { ParamSource } from '../../model/llama/params.ts';
import type { HeadsSpec, LoraSpec } from '../../model/llama/weights.ts';
import { isGpuTensor, type AnyTensor, type ManagedSession, type OrtRuntime, type TensorData } from '../ort.ts';

/** The KV cache of a batch after some calls, every tensor as plain data. */
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

/** A KV cache whose past_key_values may be in GPU memory. */
export interface EngineKv extends Omit<KvState, 'past'> {
  past: Record<string, AnyTensor>;
}

export interface EngineStep {
  /** [batch × vocab] at each row's last new token. */
  logits: Float32Array;
  /** [batch], the value head at each row's last new token (graphs built with heads.value). */
  values?: Float32Array;
  state: EngineKv;
}

/** How the stepper's graphs are built. */
export interface StepperOptions {
  lora?: LoraSpec;
  heads?: HeadsSpec;
  /** Session label prefix for errors. Default 'llama'. */
  label?: string;
  /** Token id written into padding slots (never attended). Default 0. */
  padId?: number;
  /** Keep the caches on the GPU under WebGPU (default true). */
  gpuKv?: boolean;
}

export class Stepper {
  /** Feeds added to every run: the adapter slot's LoRA matrices. */
  extraFeeds: Record<string, TensorData> = {};

  private constructor(
    readonly cfg: ModelConfig,
    private readonly runtime: OrtRuntime,
    private readonly prefillSession: ManagedSession,
    private readonly decodeSession: ManagedSession,
    private readonly padId: number,
  ) {}

  /** Builds the prefill and decode graphs and opens their sessions; on WebGPU the caches they return stay there. */
  static async create(runtime: OrtRuntime, cfg: ModelConfig, params: ParamSource, opts: StepperOptions = {}): Promise<Stepper> {
    const label = opts.label ?? 'llama';
    const common = { params, lora: opts.lora, heads: opts.heads };
    const gpuOutputs = opts.gpuKv === false ? [] : Array.from({ length: cfg.nLayers }, (_, l) => [presentKeyName(l), presentValueName(l)]).flat();
    const pre = buildGraph(cfg, { kind: 'prefill', ...common });
    const dec = buildGraph(cfg, { kind: 'decode', ...common });
    const ps = await runtime.createSession(pre.bytes, { label: `${label}.prefill`, gpuOutputs });
    try {
      const ds = await runtime.createSession(dec.bytes, { label: `${label}.decode`, gpuOutputs });
      return new Stepper(cfg, runtime, ps, ds, opts.padId ?? 0);
    } catch (e) {
      await ps.dispose();
      throw e;
    }
  }

  /** Runs whole prompts (rows may differ in length; each must be non-empty). */
  async prefill(rows: readonly (readonly number[])[]): Promise<EngineStep> {
    const b = leftPad(rows, this.padId);
    const { positions, next } = positionsFor(b.mask, b.batch, b.seq);
    const feeds = tokenFeeds(this.cfg, b.ids, positions, causalBias(b.mask, b.batch, b.seq, b.seq), b.batch, b.seq);
    const out = await this.prefillSession.runMixed({ ...feeds, ...this.extraFeeds });
    return this.result(out, { batch: b.batch, length: b.seq, keyMask: b.mask, next, past: {} });
  }

  /** Appends `rows[b]` (non-empty, ragged allowed) to each row's cache; consumes `state`. */
  async extend(state: EngineKv, rows: readonly (readonly number[])[]): Promise<EngineStep> {
    if (rows.length !== state.batch) {
      this.release(state);
      throw new SequenceError('shape', `extend: ${rows.length} rows for a batch of ${state.batch}`);
    }
    try {
      const c = leftPad(rows, this.padId);
      const total = state.length + c.seq;
      const keyMask = new Uint8Array(state.batch * total);
      for (let r = 0; r < state.batch; r++) {
        keyMask.set(state.keyMask.subarray(r * state.length, (r + 1) * state.length), r * total);
        keyMask.set(c.mask.subarray(r * c.seq, (r + 1) * c.seq), r * total + state.length);
      }
      const { positions, next } = positionsFor(c.mask, c.batch, c.seq, state.next);
      const feeds = tokenFeeds(this.cfg, c.ids, positions, causalBias(keyMask, c.batch, c.seq, total), c.batch, c.seq);
      const out = await this.decodeSession.runMixed({ ...feeds, ...state.past, ...this.extraFeeds });
      return this.result(out, { batch: state.batch, length: total, keyMask, next, past: {} });
    } finally {
      this.release(state);
    }
  }

  /** One new token per row; consumes `state`. */
  decode(state: EngineKv, tokens: readonly number[]): Promise<EngineStep> {
    return this.extend(
      state,
      tokens.map((t) => [t]),
    );
  }

  /** The same cache with every tensor as plain data (GPU tensors are downloaded and freed); consumes `state`. */
  async toCpu(state: EngineKv): Promise<KvState> {
    const past: Record<string, TensorData> = {};
    try {
      for (const [name, t] of Object.entries(state.past)) {
        if (isGpuTensor(t)) {
          delete state.past[name];
          past[name] = await this.runtime.download(t);
        } else past[name] = t;
      }
    } finally {
      this.release(state);
    }
    return { ...state, past };
  }

  /** Frees the GPU tensors of a cache that will not be used again (a no-op for plain data). */
  release(state: EngineKv): void {
    for (const [name, t] of Object.entries(state.past)) {
      if (isGpuTensor(t)) this.runtime.releaseGpu(t);
      delete state.past[name];
    }
  }

  private result(out: Record<string, AnyTensor>, state: EngineKv): EngineStep {
    for (let l = 0; l < this.cfg.nLayers; l++) {
      state.past[pastKeyName(l)] = out[presentKeyName(l)];
      state.past[pastValueName(l)] = out[presentValueName(l)];
    }
    // logits and values are not among gpuOutputs: always plain data
    const res: EngineStep = { logits: (out.logits as TensorData).data as Float32Array, state };
    if (out.values) {
      // values [B, S]: keep each row's last position
      const { dims, data } = out.values as TensorData;
      const [b, s] = dims;
      const v = data as Float32Array;
      res.values = Float32Array.from({ length: b }, (_, r) => v[r * s + s - 1]);
    }
    return res;
  }

  async dispose(): Promise<void> {
    await this.prefillSession.dispose();
    await this.decodeSession.dispose();
  }
}
