// One loaded language model on one OrtRuntime: tokenizer, config, the prefill/decode sessions
// (engine/stepper.ts, which keeps the KV cache on the GPU under WebGPU) and a scoring session, the adapter registry and the feeds of its adapter slot.
// The weights stay in memory so the sessions can be rebuilt on another runtime after a WebGPU
// fallback. This class owns its sessions and disposes them (docs/style.md point 6).
import type { LoadedModel } from '../../model/folder/folder.ts';
import { blocksQuant4, paramSource, type ParamSource } from '../../model/llama/params.ts';
import { countParams, type LoraSpec } from '../../model/llama/weights.ts';
import { isByteToken, type Tokenizer } from '../../model/tokenizer/tokenizer.ts';
import type { ManagedSession, OrtRuntime } from '../ort.ts';
import { adapterFeeds, zeroFeeds, type AdapterFeeds } from './adapters.ts';
import { AdapterError, EngineDisposedError } from './errors.ts';
import { buildScoreGraph } from './graphs.ts';
import { ContextPool } from './contexts.ts';
import { Stepper } from './stepper.ts';
import type { Adapter, ModelInfo } from './types.ts';

export type Precision = 'fp32' | 'quant4';

export class LoadedLm {
  private runnerValue: Stepper | null = null;
  private scoreSession: Promise<ManagedSession> | null = null;
  private readonly adapters = new Map<string, AdapterFeeds>();
  private readonly base: AdapterFeeds;
  private params: ParamSource;
  private byteTokenTable: Uint8Array | null = null;
  private bannedTable: Uint8Array | null = null;
  /** The adapter applied when a request names none; null = base. */
  active: string | null = null;
  /** Contexts kept for KV reuse across generate calls (GenerateRequest.cacheKeys). */
  readonly contexts = new ContextPool();

  private constructor(
    readonly name: string,
    readonly model: LoadedModel,
    readonly precision: Precision,
    readonly slot: LoraSpec | null,
    /** Keep the KV cache on the GPU under WebGPU (LoadOptions.gpuKv). */
    readonly gpuKv: boolean,
    private runtime: OrtRuntime,
    readonly info: ModelInfo,
  ) {
    this.base = zeroFeeds(model.config, slot, model.heads);
    this.params = paramSource(model.weights, precision === 'quant4' ? blocksQuant4 : 'const');
  }

  /** Builds the graphs and opens the prefill/decode sessions (the scoring session opens on first use). */
  static async open(
    name: string,
    model: LoadedModel,
    runtime: OrtRuntime,
    opts: {
      precision: Precision;
      slot: LoraSpec | null;
      gpuKv: boolean;
      info: Omit<ModelInfo, 'name' | 'config' | 'heads' | 'precision' | 'adapterSlot' | 'backend' | 'params'>;
    },
  ): Promise<LoadedLm> {
    const info: ModelInfo = {
      name,
      config: model.config,
      heads: model.heads,
      precision: opts.precision,
      adapterSlot: opts.slot,
      backend: runtime.info.kind,
      params: countParams(model.config, model.heads),
      ...(model.turnwise ? { turnwise: model.turnwise } : {}),
      ...opts.info,
    };
    const lm = new LoadedLm(name, model, opts.precision, opts.slot, opts.gpuKv, runtime, info);
    await lm.attach(runtime);
    return lm;
  }

  /** byteTokens[id]: the token is a byte-fallback token (<0xNN>). */
  get byteTokens(): Uint8Array {
    this.byteTokenTable ??= Uint8Array.from(this.tokenizer.vocab, (t) => (isByteToken(t) ? 1 : 0));
    return this.byteTokenTable;
  }

  /** Special tokens other than <|end|>: never sampled when banSpecial is on. */
  get bannedSpecial(): Uint8Array {
    if (!this.bannedTable) {
      this.bannedTable = new Uint8Array(this.cfg.vocabSize);
      for (const [name, id] of Object.entries(this.tokenizer.special)) if (name !== 'end') this.bannedTable[id] = 1;
    }
    return this.bannedTable;
  }

  get tokenizer(): Tokenizer {
    return this.model.tokenizer;
  }

  get cfg(): LoadedModel['config'] {
    return this.model.config;
  }

  get backend(): OrtRuntime['info']['kind'] {
    return this.runtime.info.kind;
  }

  /** (Re)creates the sessions on `runtime` (after a fallback the old ones died with their runtime). */
  async attach(runtime: OrtRuntime): Promise<void> {
    await this.detach();
    this.runtime = runtime;
    this.info.backend = runtime.info.kind;
    this.runnerValue = await Stepper.create(runtime, this.cfg, this.params, {
      lora: this.slot ?? undefined,
      heads: this.model.heads,
      label: this.name,
      padId: this.tokenizer.special.pad,
      gpuKv: this.gpuKv,
    });
  }

  get runner(): Stepper {
    if (!this.runnerValue) throw new EngineDisposedError(`model ${this.name} has no open sessions (it was unloaded or its backend was lost)`);
    return this.runnerValue;
  }

  /** The scoring session, created once; a failed creation is forgotten so the next call retries. */
  score(): Promise<ManagedSession> {
    this.scoreSession ??= this.runtime
      .createSession(buildScoreGraph(this.cfg, this.params, this.slot ?? undefined, this.model.heads), { label: `${this.name}.score` })
      .catch((e: unknown) => {
        this.scoreSession = null;
        throw e;
      });
    return this.scoreSession;
  }

  /** Registers (or replaces) an adapter; its feeds are computed once here. */
  setAdapter(id: string, adapter: Adapter): void {
    this.adapters.set(id, adapterFeeds(this.cfg, this.slot, adapter, id, this.model.heads));
  }

  removeAdapter(id: string): boolean {
    if (this.active === id) this.active = null;
    return this.adapters.delete(id);
  }

  adapterIds(): string[] {
    return [...this.adapters.keys()];
  }

  /** The adapter a request means: undefined = the active one, null = base. */
  resolve(adapter: string | null | undefined): { id: string | null; feeds: AdapterFeeds } {
    const id = adapter === undefined ? this.active : adapter;
    if (id === null) return { id, feeds: this.base };
    const feeds = this.adapters.get(id);
    if (!feeds) throw new AdapterError(`model ${this.name} has no adapter "${id}" (it has ${this.adapterIds().join(', ') || 'none'})`);
    return { id, feeds };
  }

  private async detach(): Promise<void> {
    // caches from another backend would not be bit-compatible with the new sessions' own
    this.contexts.clear();
    const runner = this.runnerValue;
    const score = this.scoreSession;
    this.runnerValue = null;
    this.scoreSession = null;
    await runner?.dispose();
    if (score) await (await score.catch(() => null))?.dispose();
  }

  async dispose(): Promise<void> {
    await this.detach();
  }
}
