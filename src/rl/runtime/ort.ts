// The one owner of onnxruntime-web (docs/style.md point 5): execution-provider choice, session creation,
// a run queue so runs on one device never overlap, and disposal. Everything else in Turnwise talks
// to ONNX Runtime through `OrtRuntime` and plain `TensorData` records, or `GpuTensor` handles for
// outputs a WebGPU run leaves in GPU memory (counted, owned by whoever receives them).
// Browsers get two onnxruntime-web builds, each with its own wasm instance: the JSEP build
// (`onnxruntime-web`, WebGPU + wasm) for WebGPU, and the plain wasm build (`onnxruntime-web/wasm`)
// for wasm. The split is needed for the device-loss fallback: a run in flight when the GPU device
// is lost never settles, and the JSEP instance then refuses every later run ("Session already
// started"), so the wasm runtime that replaces it must be another instance. In Node,
// `onnxruntime-web` resolves to its Node build, which is the plain wasm one already.
// Runs and downloads are raced against device loss per call (`untilLost`), never against one
// long-lived pending promise: `Promise.race([run, lost])` attaches a reaction to `lost` that holds the
// race's result, so while the device lives every run's outputs (KV caches, logits) stayed reachable
// forever (nodejs/node#17469; issue #8's RSS climb of ~150 MB/s during batched evaluation).
import * as ortWeb from 'onnxruntime-web';
import type * as OrtWeb from 'onnxruntime-web';
import { loadOrtNode, type OrtModule } from './ortNode.ts';
import { probeWebGpu, watchDevice, type GpuAdapterReport } from './webgpu.ts';
import type { TensorData, TensorType } from '../model/onnx/tensor.ts';
import { CodedError } from '../util/errors.ts';

/** webgpu and wasm through onnxruntime-web; 'node' is onnxruntime-node's CPU provider (Node only). */
export type BackendKind = 'webgpu' | 'wasm' | 'node';
/** What the user or caller asked for; 'auto' means WebGPU on a hardware adapter that can create a device, else wasm (a software adapter such as SwiftShader is far slower than wasm). */
export type BackendPreference = 'auto' | BackendKind;

export type { TensorData, TensorType } from '../model/onnx/tensor.ts';

/** The active compute backend and why it was chosen. */
export interface BackendInfo {
  kind: BackendKind;
  preference: BackendPreference;
  /** The WebGPU adapter, when WebGPU is active. */
  adapter?: GpuAdapterReport;
  /** Why WebGPU is not in use, when it is not. */
  reason?: string;
  /** wasm threads ONNX Runtime may use. */
  threads: number;
  crossOriginIsolated: boolean;
  ortVersion: string;
}

/** Named runtime failures; branch on `name`, which survives comlink. */
export class RuntimeError extends CodedError<'disposed' | 'session-create' | 'run' | 'bad-input'> {
  override name = 'RuntimeError';
}

function isNode(): boolean {
  return typeof process !== 'undefined' && !!process.versions?.node;
}

/**
 * ONNX Runtime's log severity in browsers: errors only (3). Its wasm builds print every log line with
 * console.error whatever its severity, so at the default (2, warning) each WebGPU session logged
 * "Some nodes were not assigned to the preferred execution providers" (a placement note, expected:
 * shape ops run on the CPU) as two console errors: ~4 per page load. Real failures still surface, as
 * logged errors and as the rejections every create and run is checked for. Node (onnxruntime-node,
 * the CLI) keeps ORT's default, which writes to stderr.
 */
const BROWSER_LOG_SEVERITY = 3;

/**
 * wasm threads for ONNX Runtime, fixed when its wasm module first starts (so before the first
 * runtime). Browsers: threads need cross-origin isolation (SharedArrayBuffer). Node: env
 * TURNWISE_WASM_THREADS, else 1 (the CLI trains on onnxruntime-node; wasm in Node is for tests,
 * which run in parallel workers).
 */
function defaultThreads(): number {
  if (isNode()) return Math.max(1, Math.floor(Number(globalThis.process?.env?.TURNWISE_WASM_THREADS ?? 1)) || 1);
  if (!globalThis.crossOriginIsolated) return 1;
  return Math.max(1, Math.min(4, Math.floor((navigator.hardwareConcurrency || 2) / 2)));
}

/** Options for session creation. */
export interface SessionOptions {
  /** Label used in errors. */
  label: string;
  /** 'all' by default; float64 check graphs need 'basic' (ORT fuses x·sigmoid(x) into a float-only op). */
  optimization?: 'disabled' | 'basic' | 'extended' | 'all';
  /** Outputs that runMixed leaves on the GPU (preferredOutputLocation 'gpu-buffer'); ignored off WebGPU. */
  gpuOutputs?: readonly string[];
  /**
   * false: no memory pattern (ORT's plan that, after the first run, pre-allocates one block for all
   * of a graph's intermediates and keeps it in the session's arena); the arena then holds only the
   * run's live peak. Default true.
   */
  memPattern?: boolean;
}

/**
 * A tensor that a run left in GPU memory (WebGPU only), to be fed to a later run unchanged. Whoever
 * receives it owns it: `runtime.releaseGpu` or `runtime.download` frees it. Never crosses a worker.
 */
export interface GpuTensor {
  location: 'gpu';
  type: TensorType;
  dims: number[];
  /** @internal the ORT tensor holding the GPU buffer. */
  tensor: OrtWeb.Tensor;
}

/** A feed or output of runMixed: plain data, or a tensor left on the GPU. */
export type AnyTensor = TensorData | GpuTensor;

export function isGpuTensor(t: AnyTensor): t is GpuTensor {
  return 'location' in t && t.location === 'gpu';
}

/** A session whose runs go through its runtime's queue. Dispose it when done. */
export class ManagedSession {
  private disposed = false;

  constructor(
    private readonly runtime: OrtRuntime,
    private readonly session: OrtWeb.InferenceSession,
    readonly label: string,
  ) {}

  get inputNames(): readonly string[] {
    return this.session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.session.outputNames;
  }

  /** Runs the graph once; resolves with every output as plain data. */
  run(feeds: Record<string, TensorData>): Promise<Record<string, TensorData>> {
    return this.runAny(feeds, false) as Promise<Record<string, TensorData>>;
  }

  /**
   * Like run, but feeds may be GPU tensors (used as they are, not freed) and the session's
   * `gpuOutputs` come back as GpuTensors that the caller owns.
   */
  runMixed(feeds: Record<string, AnyTensor>): Promise<Record<string, AnyTensor>> {
    return this.runAny(feeds, true);
  }

  private runAny(feeds: Record<string, AnyTensor>, keepGpu: boolean): Promise<Record<string, AnyTensor>> {
    if (this.disposed) return Promise.reject(new RuntimeError('disposed', `session ${this.label} was disposed`));
    return this.runtime.enqueue(async () => {
      const inputs: Record<string, OrtWeb.Tensor> = {};
      for (const [name, t] of Object.entries(feeds)) inputs[name] = isGpuTensor(t) ? t.tensor : new this.runtime.ort.Tensor(t.type, t.data, t.dims);
      let outputs: OrtWeb.InferenceSession.OnnxValueMapType;
      try {
        outputs = await this.runtime.untilLost(this.session.run(inputs, this.runtime.logOptions));
      } catch (e) {
        throw new RuntimeError('run', `running ${this.label} on ${this.runtime.info.kind} failed: ${(e as Error).message}`);
      }
      const result: Record<string, AnyTensor> = {};
      for (const [name, t] of Object.entries(outputs)) {
        if (keepGpu && t.location === 'gpu-buffer') result[name] = this.runtime.adoptGpu(t);
        else result[name] = { type: t.type as TensorType, data: (await t.getData(true)) as TensorData['data'], dims: [...t.dims] };
      }
      return result;
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.runtime.forget(this);
    // Releasing a session whose GPU device is already lost can fail or never settle (a run of it may
    // still hang in ORT); the session is gone either way, so do not wait for it then.
    const released = this.session.release().catch((e: Error) => console.warn(`releasing ${this.label}: ${e.message}`));
    if (!this.runtime.lostReason) await released;
  }
}

/**
 * One compute device and the sessions on it. `create` picks the provider: WebGPU when preferred
 * and available, else wasm, recording why.
 */
export class OrtRuntime {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly sessions = new Set<ManagedSession>();
  private disposed = false;
  private lostListeners: ((reason: string) => void)[] = [];
  /** Rejecters of the runs and downloads now waiting (untilLost); each removes itself when it settles. */
  private readonly lostWaiters = new Set<(e: Error) => void>();
  private lostError: Error | null = null;
  private device: GPUDevice | null = null;
  /** Set by simulateSessionFailure: every later WebGPU session creation on this runtime fails with it. */
  private sessionFailure: string | null = null;
  /** @internal the log severity of sessions and runs: errors only in browsers (BROWSER_LOG_SEVERITY), ORT's default in Node. */
  readonly logOptions: { logSeverityLevel?: 3 } = isNode() ? {} : { logSeverityLevel: BROWSER_LOG_SEVERITY };

  private constructor(
    readonly info: BackendInfo,
    /** @internal the ONNX Runtime module behind this device. */
    readonly ort: OrtModule = ortWeb,
  ) {}

  /** `fallbackReason` marks a wasm runtime made because WebGPU failed; it becomes `info.reason`. */
  static async create(preference: BackendPreference = 'auto', fallbackReason?: string): Promise<OrtRuntime> {
    const threads = defaultThreads();
    ortWeb.env.wasm.numThreads = threads;
    if (!isNode()) ortWeb.env.logLevel = 'error'; // the environment's own logger (BROWSER_LOG_SEVERITY; sessions and runs set theirs)
    const base = {
      preference,
      threads,
      crossOriginIsolated: isNode() ? false : !!globalThis.crossOriginIsolated,
      ortVersion: ortWeb.env.versions.web ?? 'unknown',
    };
    const wasm = async (reason: string) => {
      const ort = await wasmModule();
      ort.env.wasm.numThreads = threads;
      if (!isNode()) ort.env.logLevel = 'error';
      return new OrtRuntime({ ...base, kind: 'wasm', reason }, ort);
    };
    if (preference === 'node') {
      const ortNode = await loadOrtNode();
      if (ortNode) return new OrtRuntime({ ...base, kind: 'node', ortVersion: ortNode.env.versions.node ?? 'unknown' }, ortNode);
      return wasm('onnxruntime-node is not available here');
    }
    if (fallbackReason) return wasm(fallbackReason);
    if (preference === 'wasm') return wasm('wasm was chosen in settings');
    if (isNode()) return wasm('onnxruntime-web in Node runs on wasm only');
    // Only an explicit 'webgpu' runs on a software adapter: there an agent turn took 15–132 s, on wasm ~0.2 s.
    const probe = await probeWebGpu({ allowSoftware: preference === 'webgpu' });
    if (!probe.ok) return wasm(probe.reason);
    ortWeb.env.webgpu.adapter = probe.adapter;
    return new OrtRuntime({ ...base, kind: 'webgpu', adapter: probe.report });
  }

  /**
   * Settles as `work` does, or rejects as soon as the device is lost (ORT's runs on a lost device may
   * never settle). Nothing stays attached to the runtime once it has settled, so its result is
   * garbage once the caller drops it.
   */
  untilLost<T>(work: Promise<T>): Promise<T> {
    if (this.lostError) {
      work.catch(() => undefined);
      return Promise.reject(this.lostError);
    }
    return new Promise<T>((resolve, reject) => {
      this.lostWaiters.add(reject);
      work.then(resolve, reject).finally(() => this.lostWaiters.delete(reject));
    });
  }

  /** Runs and downloads now waiting on ORT (untilLost): 0 between runs; tests check that none is left behind. */
  get waitingRuns(): number {
    return this.lostWaiters.size;
  }

  /** Rejects every waiting run and every later one with `error` (the device is gone). */
  private failRuns(error: Error): void {
    this.lostError = error;
    for (const reject of this.lostWaiters) reject(error);
    this.lostWaiters.clear();
  }

  /** Why the GPU device was lost, once it was (null before). */
  get lostReason(): string | null {
    return this.lostError?.message ?? null;
  }

  /** Called once if the GPU device is lost; owners then fall back to a wasm runtime. */
  onDeviceLost(listener: (reason: string) => void): void {
    this.lostListeners.push(listener);
  }

  /** ONNX Runtime creates its GPU device with the first WebGPU session; watch it from then on. */
  private async watchOrtDevice(): Promise<void> {
    const device = await this.ort.env.webgpu.device;
    this.device = device;
    watchDevice(device, (reason, fatal) => {
      if (!fatal) return void console.warn(reason);
      this.failRuns(new RuntimeError('run', reason));
      this.lostListeners.forEach((fn) => fn(reason));
    });
  }

  /** Destroys the WebGPU device (a no-op on wasm); its loss listeners then fire. */
  async destroyDevice(): Promise<void> {
    if (!this.device) throw new RuntimeError('bad-input', `the ${this.info.kind} backend has no GPU device to lose (none created yet)`);
    this.device.destroy();
    await this.device.lost;
  }

  /**
   * Makes every later session creation on this WebGPU runtime fail, as a driver or the WebGPU EP
   * refusing a graph would (SwiftShader accepts ours, so the browser test needs this to reach the
   * fallback). Only the trigger is simulated; what follows is the real fallback path.
   */
  simulateSessionFailure(reason = 'simulated WebGPU session failure'): void {
    if (this.info.kind !== 'webgpu') throw new RuntimeError('bad-input', `the ${this.info.kind} backend has no WebGPU sessions to fail`);
    this.sessionFailure = reason;
  }

  private gpuLive = 0;
  private gpuMade = 0;

  /** GPU tensors handed out by runMixed and not yet freed, and how many were ever handed out (tests count leaks). */
  get gpuTensors(): { live: number; made: number } {
    return { live: this.gpuLive, made: this.gpuMade };
  }

  /** @internal wraps an output left on the GPU. */
  adoptGpu(t: OrtWeb.Tensor): GpuTensor {
    this.gpuLive++;
    this.gpuMade++;
    return { location: 'gpu', type: t.type as TensorType, dims: [...t.dims], tensor: t };
  }

  /** Frees a GPU tensor (a lost device may refuse; the buffer is gone with it then). */
  releaseGpu(t: GpuTensor): void {
    this.gpuLive--;
    try {
      t.tensor.dispose();
    } catch (e) {
      console.warn(`releasing a GPU tensor: ${(e as Error).message}`);
    }
  }

  /** Copies a GPU tensor to plain data and frees it (queued: never overlaps a run). */
  download(t: GpuTensor): Promise<TensorData> {
    return this.enqueue(async () => {
      this.gpuLive--;
      const data = (await this.untilLost(t.tensor.getData(true))) as TensorData['data'];
      return { type: t.type, data, dims: [...t.dims] };
    });
  }

  /** Live sessions on this runtime (tests count them to catch leaks). */
  get liveSessions(): number {
    return this.sessions.size;
  }

  async createSession(model: Uint8Array, options: SessionOptions): Promise<ManagedSession> {
    if (this.disposed) throw new RuntimeError('disposed', 'the runtime was disposed');
    if (this.sessionFailure) throw new RuntimeError('session-create', `could not create session ${options.label} on webgpu: ${this.sessionFailure}`);
    let session: OrtWeb.InferenceSession;
    try {
      session = await this.enqueue(() =>
        this.ort.InferenceSession.create(model, {
          executionProviders: [this.info.kind === 'node' ? 'cpu' : this.info.kind],
          graphOptimizationLevel: options.optimization ?? 'all',
          ...(options.memPattern === false ? { enableMemPattern: false } : {}),
          ...this.logOptions,
          ...(this.info.kind === 'webgpu' && options.gpuOutputs?.length
            ? { preferredOutputLocation: Object.fromEntries(options.gpuOutputs.map((n) => [n, 'gpu-buffer' as const])) }
            : {}),
        }),
      );
    } catch (e) {
      throw new RuntimeError('session-create', `could not create session ${options.label} on ${this.info.kind}: ${(e as Error).message}`);
    }
    if (this.info.kind === 'webgpu' && !this.device) await this.watchOrtDevice();
    const managed = new ManagedSession(this, session, options.label);
    this.sessions.add(managed);
    return managed;
  }

  /** Serialises work on this device: a run starts only after the previous one settled. */
  enqueue<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    // Not next.catch(…): that settles with the result and would keep the last run's outputs alive.
    this.queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  /** @internal called by ManagedSession.dispose */
  forget(session: ManagedSession): void {
    this.sessions.delete(session);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    await Promise.all([...this.sessions].map((s) => s.dispose()));
    this.disposed = true;
  }
}

/** The onnxruntime-web build for the wasm backend: the plain wasm build in browsers, the Node build in Node. */
function wasmModule(): Promise<OrtModule> {
  if (isNode()) return Promise.resolve(ortWeb);
  return import('onnxruntime-web/wasm');
}

/**
 * Hands this onnxruntime-web instance to another library through the `Symbol.for('onnxruntime')`
 * global that transformers.js looks for, with wasm files from `wasmDir` (a file: URL prefix), so a
 * side-by-side benchmark runs both on the same wasm build. Call before either creates a session.
 */
export function shareOrtWeb(wasmDir: string): void {
  ortWeb.env.wasm.wasmPaths = wasmDir;
  (globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] = ortWeb;
}
