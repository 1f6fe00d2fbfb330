// The policy engine: the class the policy worker exposes through comlink and that tests run
// in-thread (STYLE.md point 4). It owns one OrtRuntime and falls back to wasm, saying why, when
// WebGPU is unavailable, fails to create a session, or loses its device mid-run.
import { OrtRuntime, RuntimeError, type BackendInfo, type BackendPreference, type ManagedSession } from './ort.ts';
import { verifyModels, type ModelsReport } from '../model/manifest.ts';
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

  /** Picks the backend; resolves with what was chosen and why. */
  async init(preference: BackendPreference = 'auto'): Promise<BackendInfo> {
    await this.runtime?.dispose();
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

  async dispose(): Promise<void> {
    await this.runtime?.dispose();
    this.runtime = null;
  }

  private async fallBack(reason: string): Promise<void> {
    const preference = this.runtime?.info.preference ?? 'auto';
    await this.runtime?.dispose();
    this.runtime = await OrtRuntime.create(preference, `${reason}; fell back to wasm`);
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
