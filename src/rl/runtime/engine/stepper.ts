// The engine's prefill/decode driver over the model core's graphs (model/llama/graphs.ts), with the
// same feeds as LlamaRunner (model/llama/runner.ts: left-padded ragged rows, one additive bias,
// RoPE positions per row) but a KV cache that stays in GPU memory between decode steps on WebGPU:
// the decode graph's present.* outputs are left on the GPU (ORT preferredOutputLocation
// 'gpu-buffer') and fed back as the next step's past_key_values.* unchanged. Only the logits come
// back to JS each step. Row surgery (K samples after one prefill, dropping finished rows) needs the
// cache in JS (engine/kv.ts), so `toCpu` downloads it first. Elsewhere (wasm, Node) every tensor is
// plain data, as in LlamaRunner.
// Ownership (STYLE.md point 6): a cache passed to `extend` is consumed (its GPU tensors are freed
// once the run that read them has finished, or failed); the caller frees the last one with `release`.
import { buildGraph, pastKeyName, pastValueName, presentKeyName, presentValueName } from '../../model/llama/graphs.ts';
import { causalBias, leftPad, positionsFor, SequenceError, tokenFeeds } from '../../model/llama/feeds.ts';
import type { ModelConfig } from '../../model/llama/config.ts';
import type { ParamSource } from '../../model/llama/params.ts';
import type { KvState } from '../../model/llama/runner.ts';
import type { HeadsSpec, LoraSpec } from '../../model/llama/weights.ts';
import { isGpuTensor, type AnyTensor, type ManagedSession, type OrtRuntime, type TensorData } from '../ort.ts';

/** A KV cache whose past_key_values may be in GPU memory. */
export interface EngineKv extends Omit<KvState, 'past'> {
  past: Record<string, AnyTensor>;
}

export interface EngineStep {
  /** [batch × vocab] at each row's last new token. */
  logits: Float32Array;
  state: EngineKv;
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
  static async create(runtime: OrtRuntime, cfg: ModelConfig, params: ParamSource, opts: { lora?: LoraSpec; heads?: HeadsSpec; label: string; padId: number; gpuKv?: boolean }): Promise<Stepper> {
    const common = { params, lora: opts.lora, heads: opts.heads };
    const gpuOutputs = opts.gpuKv === false ? [] : Array.from({ length: cfg.nLayers }, (_, l) => [presentKeyName(l), presentValueName(l)]).flat();
    const pre = buildGraph(cfg, { kind: 'prefill', ...common });
    const dec = buildGraph(cfg, { kind: 'decode', ...common });
    const ps = await runtime.createSession(pre.bytes, { label: `${opts.label}.prefill`, gpuOutputs });
    try {
      const ds = await runtime.createSession(dec.bytes, { label: `${opts.label}.decode`, gpuOutputs });
      return new Stepper(cfg, runtime, ps, ds, opts.padId);
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

  /** One new token per row; consumes `state`. */
  async decode(state: EngineKv, tokens: readonly number[]): Promise<EngineStep> {
    if (tokens.length !== state.batch) throw new SequenceError('shape', `decode: ${tokens.length} tokens for a batch of ${state.batch}`);
    const c = leftPad(
      tokens.map((t) => [t]),
      this.padId,
    );
    const total = state.length + 1;
    const keyMask = new Uint8Array(state.batch * total);
    for (let r = 0; r < state.batch; r++) {
      keyMask.set(state.keyMask.subarray(r * state.length, (r + 1) * state.length), r * total);
      keyMask[r * total + state.length] = 1;
    }
    const { positions, next } = positionsFor(c.mask, c.batch, c.seq, state.next);
    const feeds = tokenFeeds(this.cfg, c.ids, positions, causalBias(keyMask, c.batch, c.seq, total), c.batch, c.seq);
    try {
      const out = await this.decodeSession.runMixed({ ...feeds, ...state.past, ...this.extraFeeds });
      return this.result(out, { batch: state.batch, length: total, keyMask, next, past: {} });
    } finally {
      this.release(state);
    }
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
    // logits are not among gpuOutputs: always plain data
    return { logits: (out.logits as TensorData).data as Float32Array, state };
  }

  async dispose(): Promise<void> {
    await this.prefillSession.dispose();
    await this.decodeSession.dispose();
  }
}
