// WebGPU detection and device ownership, without ONNX Runtime (docs/style.md point 6: one helper wires
// `device.lost` and `uncapturederror`, and device failure is loud). Works in pages and workers.

/** What the lab reports about the GPU it found. */
export interface GpuAdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** True for software adapters such as SwiftShader: correct, but timings mean nothing. */
  software: boolean;
}

export type GpuProbe =
  | { ok: true; adapter: GPUAdapter; report: GpuAdapterReport }
  /** `report`: the adapter found, when it was turned down for being software. */
  | { ok: false; reason: string; report?: GpuAdapterReport };

/** The limits ONNX Runtime's WebGPU EP asks for; requesting the adapter's maxima keeps big models working. */
const LIMITS = [
  'maxComputeWorkgroupStorageSize',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupSizeZ',
] as const;

/** Names of software rasterisers as adapters report them (Chromium's SwiftShader, Mesa's llvmpipe and lavapipe, Windows' WARP). */
const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|basic render|software/i;

/**
 * The report of an adapter from its info. Software: the browser marks it a fallback adapter
 * (GPUAdapterInfo.isFallbackAdapter, Chromium 136+), or it is named as a known software rasteriser
 * (older browsers do not set the flag; Chromium's SwiftShader reports vendor "google", architecture "swiftshader").
 */
export function describeAdapter(
  info: Pick<GPUAdapterInfo, 'vendor' | 'architecture' | 'device' | 'description'> & { isFallbackAdapter?: boolean },
): GpuAdapterReport {
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`;
  return {
    vendor: info.vendor || 'unknown',
    architecture: info.architecture || 'unknown',
    device: info.device || '',
    description: info.description || '',
    software: info.isFallbackAdapter === true || SOFTWARE.test(text),
  };
}

/** Why a software adapter is passed over for wasm under the 'auto' preference (shown in Settings and the header). */
export function softwareAdapterReason(r: GpuAdapterReport): string {
  const named = /swiftshader/i.test(`${r.architecture} ${r.description}`) ? 'SwiftShader' : `${r.vendor} ${r.architecture}`;
  // Measured on SwiftShader: an agent turn of the shipped policy took 15–132 s there, ~0.2 s on wasm.
  return `the WebGPU adapter is software (${named}); wasm is faster here (choose WebGPU in Settings to use it anyway)`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * Asks for a WebGPU adapter and checks that it can create a device with the limits ONNX Runtime
 * wants. ONNX Runtime creates its own device from the adapter it is given, and an adapter can make
 * only one device, so the check uses a first adapter and a fresh one is returned for the runtime.
 * With `allowSoftware: false` a software adapter is turned down before any device is made (reading
 * its info costs nothing, where a timed run on it would cost seconds). Never throws: every failure
 * becomes a reason string shown next to the wasm fallback.
 */
export async function probeWebGpu(opts: { allowSoftware?: boolean } = {}): Promise<GpuProbe> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) return { ok: false, reason: 'this browser exposes no WebGPU (navigator.gpu is missing)' };
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { ok: false, reason: `requesting a WebGPU adapter failed (${errorText(e)})` };
  }
  if (!adapter) return { ok: false, reason: 'no WebGPU adapter is available (blocklisted or disabled GPU)' };
  const report = describeAdapter(adapter.info);
  if (report.software && opts.allowSoftware === false) return { ok: false, reason: softwareAdapterReason(report), report };
  const requiredLimits: Record<string, number> = {};
  for (const name of LIMITS) requiredLimits[name] = adapter.limits[name];
  try {
    const device = await adapter.requestDevice({ requiredLimits });
    device.destroy();
  } catch (e) {
    return { ok: false, reason: `the WebGPU adapter could not create a device (${errorText(e)})` };
  }
  const fresh = await gpu.requestAdapter({ powerPreference: 'high-performance' }).catch(() => null);
  if (!fresh) return { ok: false, reason: 'the WebGPU adapter disappeared after its device check' };
  return { ok: true, adapter: fresh, report: describeAdapter(fresh.info) };
}

/**
 * Wires loss and uncaptured errors of a device to one callback. The callback receives a
 * human-readable reason; loss is reported once.
 */
export function watchDevice(device: GPUDevice, onFailure: (reason: string, fatal: boolean) => void): void {
  device.lost.then((info) => onFailure(`WebGPU device lost (${info.reason}${info.message ? `: ${info.message}` : ''})`, true));
  device.addEventListener('uncapturederror', (ev) => {
    onFailure(`WebGPU error: ${(ev as GPUUncapturedErrorEvent).error.message}`, false);
  });
}
