// The engine's prefill/decode driver over the model core's graphs (model/llama/graphs.ts): ragged
// batches left-padded into one additive attention bias with RoPE positions per row, and a KV cache
// that grows by chunks (a generated token per row, or a whole reply appended in one call).
// Two ways to keep the cache between runs:
//  - 'gpu' (WebGPU with gpuKv): the decode graph returns the whole cache (present.*), left in GPU
//    memory (ORT preferredOutputLocation 'gpu-buffer') and fed back as the next past_key_values.*;
//    only the logits (and a critic's values) come back to JS. Row surgery downloads it (`toCpu`).
//  - 'host' (wasm, Node, or gpuKv off): the cache lives in JS buffers with free slots at the end
//    (KvState.used < length); the decode graph returns only the new tokens' keys and values
//    (new.*, cache: 'fresh'), which are written into the free slots. Returning present.* would copy
//    the whole cache out of ONNX Runtime into freshly allocated arrays every step, the largest
//    per-step cost at 8 rows (measured: ~1 ms of allocation per 2.6 MB step at B = 8).
// Free and padding slots are masked (keyMask 0), so a cache may hold padding anywhere.
// Ownership (docs/style.md point 6): a cache passed to `extend`/`decode` is consumed (a 'gpu' cache's
// tensors are freed once the run that read them has finished, or failed; a 'host' cache is updated
// in place and returned); the caller frees the last one with `release`. The stepper owns its two
// sessions and disposes them.
import { buildGraph, freshKeyName, freshValueName, pastKeyName, pastValueName, presentKeyName, presentValueName } from '../../model/llama/graphs.ts';
import { causalBias, leftPad, positionsFor, SequenceError, tokenFeeds } from '../../model/llama/feeds.ts';
import type { ModelConfig } from '../../model/llama/config.ts';
import type { ParamSource } from '../../model/llama/params.ts';
import type { HeadsSpec, LoraSpec } from '../../model/llama/weights.ts';
import { isGpuTensor, type AnyTensor, type ManagedSession, type OrtRuntime, type TensorData } from '../ort.ts';
import { appendChunk, growRows, HOST_HEADROOM } from './kv.ts';

/** The KV cache of a batch after some calls, every tensor as plain data. */
export interface KvState {
  batch: number;
  /** Slots per row T (the past tensors' third dimension), written and free. */
  length: number;
  /** Slots written so far (real tokens and padding); [used, length) are free, masked, and where a host cache appends. */
  used: number;
  /** [batch × length]: 1 where a slot holds a real token. */
  keyMask: Uint8Array;
  /** Next RoPE position of each row (its count of real tokens). */
  next: Int32Array;
  /** past_key_values.{l}.key/value feeds, [batch, nKvHeads, length, headDim] (data may be longer: rows dropped in place). */
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
    /** Where the cache lives between runs (see the file comment). */
    readonly mode: 'gpu' | 'host',
  ) {}

  /** Builds the prefill and decode graphs and opens their sessions; on WebGPU the caches they return stay there. */
  static async create(runtime: OrtRuntime, cfg: ModelConfig, params: ParamSource, opts: StepperOptions = {}): Promise<Stepper> {
    const label = opts.label ?? 'llama';
    const common = { params, lora: opts.lora, heads: opts.heads };
    const mode = opts.gpuKv !== false && runtime.info.kind === 'webgpu' ? 'gpu' : 'host';
    const gpuOutputs = mode === 'gpu' ? Array.from({ length: cfg.nLayers }, (_, l) => [presentKeyName(l), presentValueName(l)]).flat() : [];
    const pre = buildGraph(cfg, { kind: 'prefill', ...common });
    const dec = buildGraph(cfg, { kind: 'decode', ...common, cache: mode === 'gpu' ? 'present' : 'fresh' });
    const ps = await runtime.createSession(pre.bytes, { label: `${label}.prefill`, gpuOutputs });
    try {
      const ds = await runtime.createSession(dec.bytes, { label: `${label}.decode`, gpuOutputs });
      return new Stepper(cfg, runtime, ps, ds, opts.padId ?? 0, mode);
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
    const state: EngineKv = { batch: b.batch, length: b.seq, used: b.seq, keyMask: b.mask, next, past: {} };
    for (let l = 0; l < this.cfg.nLayers; l++) {
      state.past[pastKeyName(l)] = out[presentKeyName(l)];
      state.past[pastValueName(l)] = out[presentValueName(l)];
    }
    return this.result(out, state);
  }

  /** Appends `rows[b]` (non-empty, ragged allowed) to each row's cache; consumes `state`. */
  async extend(state: EngineKv, rows: readonly (readonly number[])[]): Promise<EngineStep> {
    if (rows.length !== state.batch) {
      this.release(state);
      throw new SequenceError('shape', `extend: ${rows.length} rows for a batch of ${state.batch}`);
    }
    const c = leftPad(rows, this.padId);
    if (this.mode === 'host') return this.extendHost(state as KvState, c);
    try {
      // The graph appends after every slot, free ones included (they stay masked).
      const total = state.length + c.seq;
      const keyMask = withChunk(state.keyMask, state.batch, state.length, c.mask, c.seq);
      const { positions, next } = positionsFor(c.mask, c.batch, c.seq, state.next);
      const feeds = tokenFeeds(this.cfg, c.ids, positions, causalBias(keyMask, c.batch, c.seq, total), c.batch, c.seq);
      const out = await this.decodeSession.runMixed({ ...feeds, ...state.past, ...this.extraFeeds });
      const res: EngineKv = { batch: state.batch, length: total, used: total, keyMask, next, past: {} };
      for (let l = 0; l < this.cfg.nLayers; l++) {
        res.past[pastKeyName(l)] = out[presentKeyName(l)];
        res.past[pastValueName(l)] = out[presentValueName(l)];
      }
      return this.result(out, res);
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

  /** A host-cache extend: the chunk goes into free slots (grown by HOST_HEADROOM when short), in place. */
  private async extendHost(state: KvState, c: ReturnType<typeof leftPad>): Promise<EngineStep> {
    for (const t of Object.values(state.past)) if (isGpuTensor(t)) throw new SequenceError('shape', 'extend: a host cache holds GPU tensors');
    let s = state;
    if (s.used + c.seq > s.length) s = growRows(s, s.used + c.seq + HOST_HEADROOM);
    const total = s.length + c.seq;
    const keyMask = withChunk(s.keyMask, s.batch, s.length, c.mask, c.seq);
    const { positions, next } = positionsFor(c.mask, c.batch, c.seq, s.next);
    const feeds = tokenFeeds(this.cfg, c.ids, positions, causalBias(keyMask, c.batch, c.seq, total), c.batch, c.seq);
    const past: Record<string, TensorData> = {};
    for (const [name, t] of Object.entries(s.past)) {
      const size = t.dims.reduce((a, b) => a * b, 1);
      past[name] = t.data.length === size ? t : { ...t, data: t.data.subarray(0, size) };
    }
    const out = await this.decodeSession.runMixed({ ...feeds, ...past, ...this.extraFeeds });
    const fresh: Record<string, TensorData> = {};
    for (let l = 0; l < this.cfg.nLayers; l++) {
      fresh[pastKeyName(l)] = out[freshKeyName(l)] as TensorData;
      fresh[pastValueName(l)] = out[freshValueName(l)] as TensorData;
    }
    appendChunk(s, fresh, c.mask, c.seq);
    s.next = next;
    return this.result(out, s);
  }

  private result(out: Record<string, AnyTensor>, state: EngineKv): EngineStep {
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

/** [batch × (length + seq)]: each row's slot mask followed by its chunk's. */
function withChunk(keyMask: Uint8Array, batch: number, length: number, chunk: Uint8Array, seq: number): Uint8Array {
  const total = length + seq;
  const out = new Uint8Array(batch * total);
  for (let r = 0; r < batch; r++) {
    out.set(keyMask.subarray(r * length, (r + 1) * length), r * total);
    out.set(chunk.subarray(r * seq, (r + 1) * seq), r * total + length);
  }
  return out;
}
