// The policy engine: the class the policy worker exposes through comlink and that tests run
// in-thread (docs/style.md point 4). It owns one OrtRuntime and falls back to wasm, saying why, when
// WebGPU is unavailable, fails to create a session, or loses its device mid-run; loaded models are
// then rebuilt on wasm from the weights they keep. It serves the policy and the critic: loading with
// progress, generation with a KV cache, batched sampling, scoring, live LoRA adapters (engine/).
import { OrtRuntime, RuntimeError, type BackendInfo, type BackendPreference, type ManagedSession } from './ort.ts';
import { verifyModels, type ModelsReport } from '../model/manifest.ts';
import type { LoadedModel } from '../model/folder/folder.ts';
import { contextTokens, keepsAnswered } from '../model/meta.ts';
import { DEFAULT_ADAPTER_SLOT, SHIPPED_ADAPTER_ID } from './engine/adapters.ts';
import { shippedAdapter } from '../bridge/peft.ts';
import { EngineDisposedError, EngineInputError, ModelNotLoadedError } from './engine/errors.ts';
import { runGeneration } from './engine/generate.ts';
import { LoadedLm } from './engine/lm.ts';
import { readModel, type MemorySource, type ReaderSource } from './engine/loader.ts';
import { checkPromptFits, encodePrompt } from './engine/prompts.ts';
import { RequestTracker, type Ticket } from './engine/requests.ts';
import { resolveSampling } from './engine/sampling.ts';
import { scoreItems, scoreTurns } from './engine/score.ts';
import type {
  Adapter,
  GenerateRequest,
  GenerateResult,
  LoadOptions,
  LoadProgress,
  ModelInfo,
  ModelSource,
  Prompt,
  RequestCommon,
  ScoreRequest,
  ScoreResult,
  TokenEvent,
  TurnScoreRequest,
  TurnScoreResult,
} from './engine/types.ts';
import { urlReader } from './urlReader.ts';
import { buildProbeGraph, maxAbsDiff, probeInput, probeReference, probeWeights, PROBE_IN, PROBE_OUT } from '../model/probe.ts';

/** Result of running the probe graph against its TypeScript reference. */
export interface SelfTestResult {
  backend: BackendInfo['kind'];
  batch: number;
  /** Largest |graph − reference| over all outputs. */
  maxAbsError: number;
  /** Passes when maxAbsError ≤ 1e-4. */
  ok: boolean;
  /** The first row of outputs, for display. */
  sample: number[];
  /** Wall time of session creation plus one run, ms. */
  ms: number;
}

/** Status changes pushed to whoever listens (the UI's status area). */
export type EngineEvent = { kind: 'backend'; info: BackendInfo } | { kind: 'fallback'; reason: string; info: BackendInfo };

export const SELF_TEST_TOLERANCE = 1e-4;

export class PolicyEngine {
  private runtime: OrtRuntime | null = null;
  private listeners: ((e: EngineEvent) => void)[] = [];
  /** Settles when a fallback in progress (after device loss) has finished. */
  private settled: Promise<void> = Promise.resolve();
  private readonly lms = new Map<string, LoadedLm>();
  private readonly requests = new RequestTracker();
  /** 'disposed' after dispose() until the next init(). */
  private phase: 'new' | 'ready' | 'disposed' = 'new';

  /** Picks the backend; resolves with what was chosen and why. Models loaded before are unloaded. */
  async init(preference: BackendPreference = 'auto'): Promise<BackendInfo> {
    await this.unloadAll();
    await this.runtime?.dispose();
    this.phase = 'ready';
    this.runtime = await OrtRuntime.create(preference);
    this.runtime.onDeviceLost((reason) => {
      this.settled = this.fallBack(reason);
    });
    this.emit({ kind: 'backend', info: this.runtime.info });
    return this.runtime.info;
  }

  /** Registers a listener for backend changes (pass a comlink proxy across workers). */
  subscribe(listener: (e: EngineEvent) => void): void {
    this.listeners.push(listener);
  }

  async backendInfo(): Promise<BackendInfo> {
    await this.settled;
    return this.requireRuntime().info;
  }

  liveSessions(): number {
    return this.runtime?.liveSessions ?? 0;
  }

  /** GPU tensors (KV caches kept on the GPU) not yet freed, and how many were made, on the current backend. */
  gpuTensors(): { live: number; made: number } {
    return this.runtime?.gpuTensors ?? { live: 0, made: 0 };
  }

  /**
   * Builds the probe MLP (4-bit MatMulNBits layer) in TypeScript, runs it on the active backend
   * and compares it with the plain reference. A WebGPU failure falls back to wasm and retries.
   */
  async selfTest(batch = 4): Promise<SelfTestResult> {
    await this.settled;
    const weights = probeWeights();
    const x = probeInput(batch);
    const expected = probeReference(weights, x, batch);
    const model = buildProbeGraph(weights);
    const start = performance.now();
    let session: ManagedSession;
    try {
      session = await this.requireRuntime().createSession(model, { label: 'probe' });
    } catch (e) {
      if (this.requireRuntime().info.kind !== 'webgpu') throw e;
      await this.fallBack(`WebGPU could not run the probe graph (${(e as Error).message})`);
      return this.selfTest(batch);
    }
    try {
      const out = await session.run({ x: { type: 'float32', data: x, dims: [batch, PROBE_IN] } });
      const y = out.y.data as Float32Array;
      const maxAbsError = maxAbsDiff(y, expected);
      return {
        backend: this.requireRuntime().info.kind,
        batch,
        maxAbsError,
        ok: maxAbsError <= SELF_TEST_TOLERANCE,
        sample: Array.from(y.subarray(0, PROBE_OUT)),
        ms: performance.now() - start,
      };
    } finally {
      await session.dispose();
    }
  }

  /** Verifies the models folder at `baseUrl` against its manifest (sizes and sha256). */
  verifyModels(baseUrl: string): Promise<ModelsReport> {
    return verifyModels(urlReader(baseUrl));
  }

  /**
   * Destroys the GPU device, as a driver reset would. Used by the browser test of the
   * device-loss fallback and by Settings' "simulate device loss" diagnostic.
   */
  async loseDevice(): Promise<void> {
    await this.requireRuntime().destroyDevice();
    await this.settled;
  }

  /**
   * Makes every later WebGPU session creation fail (ort.ts simulateSessionFailure): the next load,
   * or the first scoring call of a loaded model, then falls back to wasm. For the browser test of
   * that fallback; a real driver failure takes the same path.
   */
  async simulateSessionFailure(reason?: string): Promise<void> {
    await this.settled;
    this.requireRuntime().simulateSessionFailure(reason);
  }

  /** Stops every request (CancelledError), unloads every model and releases the backend. */
  async dispose(): Promise<void> {
    this.requests.cancelAll('disposed');
    this.phase = 'disposed';
    await this.unloadAll();
    await this.runtime?.dispose();
    this.runtime = null;
  }

  // ---- models -------------------------------------------------------------------------------

  /**
   * Loads a model from a URL root (manifest.json, sha256-verified, cached for offline use) or from
   * bytes, builds its graphs and opens its sessions. Replaces a model of the same name.
   * `onProgress` receives bytes and stages (pass a comlink `proxy(fn)` across the worker).
   */
  async load(name: string, source: ModelSource, opts: LoadOptions = {}, onProgress?: (p: LoadProgress) => void): Promise<ModelInfo> {
    return this.loadAny(name, source, opts, onProgress);
  }

  /** In-thread only (functions and weights in memory do not cross comlink): load through any byte reader, e.g. Node's fs, or a model already in memory. */
  async loadFrom(name: string, source: ReaderSource | MemorySource, opts: LoadOptions = {}, onProgress?: (p: LoadProgress) => void): Promise<ModelInfo> {
    return this.loadAny(name, source, opts, onProgress);
  }

  private async loadAny(
    name: string,
    source: ModelSource | ReaderSource | MemorySource,
    opts: LoadOptions,
    onProgress?: (p: LoadProgress) => void,
  ): Promise<ModelInfo> {
    this.requireReady();
    await this.settled;
    const start = performance.now();
    const report = (p: Omit<LoadProgress, 'model'>) => void Promise.resolve(onProgress?.({ model: name, ...p })).catch(() => undefined);
    const read = await readModel(source, report);
    const runtime = this.requireRuntime();
    const precision = opts.precision && opts.precision !== 'auto' ? opts.precision : runtime.info.kind === 'webgpu' ? 'quant4' : 'fp32';
    const shipped = shippedAdapter(read.model);
    const slot = opts.adapterSlot === undefined ? DEFAULT_ADAPTER_SLOT : (opts.adapterSlot ?? shipped?.spec ?? null);
    report({ stage: 'build', loadedBytes: read.bytes, totalBytes: read.bytes });
    const info = { bytes: read.bytes, verified: read.verified, cachedFiles: read.cachedFiles, loadMs: 0 };
    let lm: LoadedLm;
    try {
      lm = await LoadedLm.open(name, read.model, runtime, { precision, slot, info, gpuKv: opts.gpuKv !== false });
    } catch (e) {
      if (runtime.info.kind !== 'webgpu') throw e;
      await this.fallBack(`WebGPU could not open model ${name} (${(e as Error).message})`);
      lm = await LoadedLm.open(name, read.model, this.requireRuntime(), {
        precision: opts.precision === 'quant4' ? 'quant4' : 'fp32',
        slot,
        info,
        gpuKv: opts.gpuKv !== false,
      });
    }
    if (shipped) {
      // the folder's adapter (the forged critic's SWEET-RL adapter) is what the model means by default
      try {
        lm.setAdapter(SHIPPED_ADAPTER_ID, shipped);
      } catch (e) {
        await lm.dispose();
        throw e;
      }
      lm.active = SHIPPED_ADAPTER_ID;
    }
    await this.lms.get(name)?.dispose();
    this.lms.set(name, lm);
    lm.info.loadMs = performance.now() - start;
    report({ stage: 'ready', loadedBytes: read.bytes, totalBytes: read.bytes });
    return { ...lm.info };
  }

  /** What is loaded. */
  models(): ModelInfo[] {
    return [...this.lms.values()].map((lm) => ({ ...lm.info }));
  }

  async unload(name: string): Promise<boolean> {
    const lm = this.lms.get(name);
    this.lms.delete(name);
    await lm?.dispose();
    return !!lm;
  }

  /** Token ids of a prompt, as generate() would feed them. */
  async encode(prompt: Prompt, model = 'policy'): Promise<number[]> {
    return encodePrompt(this.lm(model).tokenizer, prompt);
  }

  async decode(ids: number[], model = 'policy'): Promise<string> {
    return this.lm(model).tokenizer.decode(ids);
  }

  // ---- generation and scoring ---------------------------------------------------------------

  /**
   * Samples `n` continuations of each prompt in one batched run with a KV cache. Tokens stream to
   * `onToken` as they are produced; `cancel(request.id)` stops the request with CancelledError.
   */
  async generate(request: GenerateRequest, onToken?: (e: TokenEvent) => void): Promise<GenerateResult> {
    const startedAt = performance.now();
    const params = resolveSampling(request.sampling);
    const n = request.n ?? 1;
    if (!Number.isInteger(n) || n < 1 || n > 1024) throw new EngineInputError(`generate: n (samples per prompt) must be an integer in [1, 1024], got ${n}`);
    if (!Array.isArray(request.prompts) || request.prompts.length === 0) throw new EngineInputError('generate: prompts must be a non-empty list');
    const seeds = request.seeds;
    if (seeds !== undefined && (!Array.isArray(seeds) || seeds.length !== request.prompts.length || !seeds.every((s) => Number.isSafeInteger(s)))) {
      throw new EngineInputError(`generate: seeds must be one integer per prompt (${request.prompts.length}), got ${JSON.stringify(seeds)}`);
    }
    const { cacheKeys, forget } = request;
    if (
      cacheKeys !== undefined &&
      (!Array.isArray(cacheKeys) ||
        cacheKeys.length !== request.prompts.length ||
        !cacheKeys.every((k) => typeof k === 'string') ||
        new Set(cacheKeys).size !== cacheKeys.length ||
        n !== 1)
    ) {
      throw new EngineInputError(
        `generate: cacheKeys must be one distinct string per prompt (${request.prompts.length}) with n = 1, got ${JSON.stringify(cacheKeys)} with n = ${n}`,
      );
    }
    if (forget !== undefined && (!Array.isArray(forget) || !forget.every((k) => typeof k === 'string')))
      throw new EngineInputError('generate: forget must be a list of cache keys');
    return this.withRequest(request, async (lm, ticket) => {
      for (const k of forget ?? []) lm.contexts.delete(k);
      const { id: adapter, feeds } = lm.resolve(request.adapter);
      const window = { budget: contextTokens(lm.info.turnwise, lm.cfg.maxSeq), reserve: params.maxNewTokens, keepAnswered: keepsAnswered(lm.info.turnwise) };
      const prompts = request.prompts.map((p, i) => encodePrompt(lm.tokenizer, p, `prompt ${i}`, window));
      prompts.forEach((ids, i) => checkPromptFits(ids.length, lm.cfg.maxSeq, `prompt ${i}`));
      const encodeMs = performance.now() - startedAt;
      const { generations, timing } = await runGeneration({ lm, feeds, ticket, prompts, n, params, seeds, cacheKeys, onToken, startedAt, encodeMs });
      return { generations, timing, backend: lm.backend, adapter };
    });
  }

  /** Generates the same request under each adapter (null = base), one after another, for comparison. */
  async compare(request: GenerateRequest, adapters: (string | null)[]): Promise<GenerateResult[]> {
    const out: GenerateResult[] = [];
    for (const adapter of adapters) out.push(await this.generate({ ...request, adapter }));
    return out;
  }

  /** log-probs of given continuations under the model (adapter: active, named, or null = reference). */
  async score(request: ScoreRequest): Promise<ScoreResult> {
    const start = performance.now();
    return this.withRequest(request, async (lm, ticket) => {
      const { id, feeds } = lm.resolve(request.adapter);
      const items = await scoreItems(lm, feeds, ticket, request.items);
      return { items, ms: performance.now() - start, adapter: id };
    });
  }

  /** Per-turn log-probs (and critic values) of whole episodes in the chat template. */
  async scoreTurns(request: TurnScoreRequest): Promise<TurnScoreResult> {
    const start = performance.now();
    return this.withRequest(request, async (lm, ticket) => {
      const { id, feeds } = lm.resolve(request.adapter);
      const episodes = await scoreTurns(lm, feeds, ticket, request.episodes, request.role ?? 'agent');
      return { episodes, ms: performance.now() - start, adapter: id };
    });
  }

  /** Stops a request by id; resolves true when one was running. */
  async cancel(id: string): Promise<boolean> {
    return this.requests.cancel(id);
  }

  // ---- adapters -----------------------------------------------------------------------------

  /** Registers (or replaces) a LoRA adapter; it becomes the active one unless `activate` is false. No session is rebuilt. */
  async setAdapter(id: string, adapter: Adapter, opts: { model?: string; activate?: boolean } = {}): Promise<void> {
    const lm = this.lm(opts.model ?? 'policy');
    lm.setAdapter(id, adapter);
    if (opts.activate !== false) lm.active = id;
  }

  /** Makes a registered adapter (or null: none, the base model) the one requests use by default. */
  async activateAdapter(id: string | null, model = 'policy'): Promise<void> {
    const lm = this.lm(model);
    lm.resolve(id);
    lm.active = id;
  }

  /** Back to the base model (the registered adapters stay available). */
  async clearAdapter(model = 'policy'): Promise<void> {
    this.lm(model).active = null;
  }

  async removeAdapter(id: string, model = 'policy'): Promise<boolean> {
    return this.lm(model).removeAdapter(id);
  }

  async adapters(model = 'policy'): Promise<{ ids: string[]; active: string | null }> {
    const lm = this.lm(model);
    return { ids: lm.adapterIds(), active: lm.active };
  }

  // ---- internals ----------------------------------------------------------------------------

  /**
   * Runs `work` under a cancellable ticket; retries once on wasm when a WebGPU fallback happened
   * meanwhile (device loss), or falls back itself when a session (the lazily created scoring one)
   * could not be created on WebGPU.
   */
  private async withRequest<T>(request: RequestCommon, work: (lm: LoadedLm, ticket: Ticket) => Promise<T>): Promise<T> {
    this.requireReady();
    await this.settled;
    const ticket = this.requests.open(request.id, request.channel);
    try {
      const runtime = this.runtime;
      try {
        return await work(this.lm(request.model ?? 'policy'), ticket);
      } catch (e) {
        if ((e as Error).name === 'CancelledError') throw e;
        if (e instanceof RuntimeError && e.code === 'session-create' && runtime?.info.kind === 'webgpu' && this.runtime === runtime) {
          this.settled = this.fallBack(`WebGPU could not create a session (${e.message})`);
        }
        await this.settled;
        if (this.runtime === runtime || this.phase !== 'ready' || ticket.cancelled) throw e;
        return await work(this.lm(request.model ?? 'policy'), ticket);
      }
    } finally {
      ticket.close();
    }
  }

  private lm(name: string): LoadedLm {
    this.requireReady();
    const lm = this.lms.get(name);
    if (!lm) throw new ModelNotLoadedError(name, `model "${name}" is not loaded (loaded: ${[...this.lms.keys()].join(', ') || 'none'}); call load first`);
    return lm;
  }

  private requireReady(): void {
    if (this.phase === 'disposed') throw new EngineDisposedError('the engine was disposed; call init to start it again');
    if (this.phase === 'new') throw new EngineDisposedError('the engine is not initialised; call init first');
  }

  private async unloadAll(): Promise<void> {
    const all = [...this.lms.values()];
    this.lms.clear();
    for (const lm of all) await lm.dispose();
  }

  /**
   * In-thread only: the engine's runtime, for the train-step sessions that sit beside its models, so a
   * worker has one OrtRuntime and one run queue. A device-loss fallback replaces it (and only the
   * engine's own sessions are rebuilt), so take it afresh rather than keeping it across a loss.
   */
  sharedRuntime(): OrtRuntime {
    return this.requireRuntime();
  }

  /** In-thread only: the model folder `name` was loaded from (weights, tokenizer, metadata), read once. */
  loadedModel(name: string): LoadedModel {
    return this.lm(name).model;
  }

  private async fallBack(reason: string): Promise<void> {
    const preference = this.runtime?.info.preference ?? 'auto';
    await this.runtime?.dispose();
    this.runtime = await OrtRuntime.create(preference, `${reason}; fell back to wasm`);
    // The models' sessions died with the old runtime; rebuild them from their weights.
    for (const lm of this.lms.values()) await lm.attach(this.runtime);
    this.emit({ kind: 'fallback', reason, info: this.runtime.info });
  }

  private requireRuntime(): OrtRuntime {
    if (!this.runtime) throw new RuntimeError('disposed', 'the policy engine is not initialised (call init first) or was disposed');
    return this.runtime;
  }

  private emit(e: EngineEvent): void {
    for (const fn of this.listeners) fn(e);
  }
}
