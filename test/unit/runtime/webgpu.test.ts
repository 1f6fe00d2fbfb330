// Which WebGPU adapters 'auto' passes over (runtime/webgpu.ts): software ones, known by the browser's
// fallback flag or by name, since on them an agent turn of the shipped policy took 15–132 s against
// ~0.2 s on wasm (SwiftShader on the CI machines). Adapter infos below are as browsers report them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeAdapter, probeWebGpu, softwareAdapterReason } from '../../../src/rl/runtime/webgpu.ts';

const info = (vendor: string, architecture: string, description = '', isFallbackAdapter?: boolean) => ({
  vendor,
  architecture,
  device: '',
  description,
  ...(isFallbackAdapter === undefined ? {} : { isFallbackAdapter }),
});

describe('software adapters', () => {
  it.each([
    ['Chromium SwiftShader (Chromium 156 here)', info('google', 'swiftshader', '', true), true],
    ['SwiftShader without the fallback flag (older Chromium)', info('google', 'swiftshader'), true],
    ['Mesa llvmpipe', info('mesa', '', 'llvmpipe (LLVM 15.0.7, 256 bits)'), true],
    ['Windows WARP', info('microsoft', '', 'Microsoft Basic Render Driver'), true],
    ['an unnamed fallback adapter', info('', '', '', true), true],
    ['NVIDIA', info('nvidia', 'ampere', 'NVIDIA GeForce RTX 3080', false), false],
    ['Apple', info('apple', 'metal-3'), false],
    ['Intel', info('intel', 'gen-12lp', '', false), false],
  ])('%s', (_name, adapter, software) => {
    expect(describeAdapter(adapter).software).toBe(software);
  });

  it('names SwiftShader in the reason wasm was chosen', () => {
    expect(softwareAdapterReason(describeAdapter(info('google', 'swiftshader')))).toBe(
      'the WebGPU adapter is software (SwiftShader); wasm is faster here (choose WebGPU in Settings to use it anyway)',
    );
    expect(softwareAdapterReason(describeAdapter(info('mesa', 'llvm', 'llvmpipe')))).toMatch(/^the WebGPU adapter is software \(mesa llvm\)/);
  });
});

describe('probeWebGpu', () => {
  afterEach(() => vi.unstubAllGlobals());

  /** A navigator.gpu whose adapters report `adapterInfo`; counts the devices made. */
  function stubGpu(adapterInfo: ReturnType<typeof info>) {
    const made = { devices: 0 };
    const adapter = { info: adapterInfo, limits: {}, requestDevice: async () => (made.devices++, { destroy() {} }) };
    vi.stubGlobal('navigator', { gpu: { requestAdapter: async () => adapter } });
    return made;
  }

  it('turns a software adapter down before making a device, unless software is allowed', async () => {
    const made = stubGpu(info('google', 'swiftshader', '', true));
    const auto = await probeWebGpu({ allowSoftware: false });
    expect(auto).toMatchObject({ ok: false, reason: expect.stringMatching(/software \(SwiftShader\)/), report: { software: true } });
    expect(made.devices).toBe(0);
    expect(await probeWebGpu({ allowSoftware: true })).toMatchObject({ ok: true, report: { vendor: 'google', software: true } });
    expect(made.devices).toBe(1);
  });

  it('takes a hardware adapter either way', async () => {
    stubGpu(info('nvidia', 'ampere', '', false));
    expect(await probeWebGpu({ allowSoftware: false })).toMatchObject({ ok: true, report: { vendor: 'nvidia', software: false } });
  });
});
