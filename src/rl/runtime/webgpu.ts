// WebGPU detection and device ownership, without ONNX Runtime (STYLE.md point 6: one helper wires
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
  | { ok: false; reason: string };

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

function describe(adapter: GPUAdapter): GpuAdapterReport {
  const info = adapter.info;
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`.toLowerCase();
  return {
    vendor: info.vendor || 'unknown',
    architecture: info.architecture || 'unknown',
    device: info.device || '',
    description: info.description || '',
    software: text.includes('swiftshader') || text.includes('llvmpipe') || text.includes('software'),
  };
}

function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * Asks for a WebGPU adapter and checks that it can create a device with the limits ONNX Runtime
 * wants. ONNX Runtime creates its own device from the adapter it is given, and an adapter can make
 * only one device, so the check uses a first adapter and a fresh one is returned for the runtime.
 * Never throws: every failure becomes a reason string shown next to the wasm fallback.
 */
export async function probeWebGpu(): Promise<GpuProbe> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) return { ok: false, reason: 'this browser exposes no WebGPU (navigator.gpu is missing)' };
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { ok: false, reason: `requesting a WebGPU adapter failed (${errorText(e)})` };
  }
  if (!adapter) return { ok: false, reason: 'no WebGPU adapter is available (blocklisted or disabled GPU)' };
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
  return { ok: true, adapter: fresh, report: describe(fresh) };
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
