import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ADAPTER_CONFIG_FILE,
  ADAPTER_WEIGHTS_FILE,
  exportPeftAdapter,
  expectedPeftKeys,
  importPeftAdapter,
  PEFT_PREFIX,
  PeftError,
  type LoraAdapter,
} from '../../../src/rl/bridge/peft.ts';
import { bf16ToF32, f16ToF32, readSafetensorsWidened } from '../../../src/rl/bridge/halfFloat.ts';
import { adapterFromRow, adapterRowFields, exportAdapterRow, importAdapterRow } from '../../../src/rl/store/formats/peft.ts';
import { readSafetensors, writeSafetensors } from '../../../src/rl/model/safetensors.ts';
import { ALL_LORA_TARGETS, initLora, loraParams, type LoraSpec, type LoraTarget } from '../../../src/rl/model/llama/weights.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { cfg } from './fixture.ts';

/** A LoRA adapter with nonzero A and B. */
function adapter(spec: LoraSpec, seed = 1): LoraAdapter {
  const weights = initLora(cfg, spec, seed, 0.05);
  const rng = new Rng(seed + 1);
  for (const p of loraParams(cfg, spec)) weights[p.b.name] = weights[p.b.name].map(() => rng.normal() * 0.05);
  return { spec, weights };
}

const bits = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));
const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
const spec2: LoraSpec = { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] };

describe('PEFT export', () => {
  it('writes PEFT key names, shapes, F32 and adapter_config.json fields', () => {
    const files = exportPeftAdapter(cfg, adapter(spec2), { baseModel: 'export/policy' });
    expect(Object.keys(files).sort()).toEqual([ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE]);
    const { tensors, metadata } = readSafetensors(files[ADAPTER_WEIGHTS_FILE]);
    expect(Object.keys(tensors).sort()).toEqual(expectedPeftKeys(cfg, spec2));
    // hand-written expected set for 2 layers × {q, v} (kv width = 2 heads × 16)
    expect(expectedPeftKeys(cfg, spec2)).toEqual(
      [0, 1]
        .flatMap((l) => ['q_proj', 'v_proj'].flatMap((p) => ['A', 'B'].map((ab) => `base_model.model.model.layers.${l}.self_attn.${p}.lora_${ab}.weight`)))
        .sort(),
    );
    expect(tensors['base_model.model.model.layers.1.self_attn.q_proj.lora_A.weight']).toMatchObject({ dtype: 'F32', shape: [4, 64] });
    expect(tensors['base_model.model.model.layers.1.self_attn.v_proj.lora_B.weight']).toMatchObject({ dtype: 'F32', shape: [32, 4] });
    expect(metadata.format).toBe('pt');
    const conf = JSON.parse(new TextDecoder().decode(files[ADAPTER_CONFIG_FILE]));
    expect(conf).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: 4,
      lora_alpha: 8,
      target_modules: ['q_proj', 'v_proj'],
      base_model_name_or_path: 'export/policy',
      bias: 'none',
      use_rslora: false,
      use_dora: false,
    });
  });

  it('refuses an adapter with a missing or mis-sized matrix', () => {
    const a = adapter(spec2);
    const name = 'model.layers.0.self_attn.v_proj.lora_B.weight';
    expect(() => exportPeftAdapter(cfg, { ...a, weights: { ...a.weights, [name]: new Float32Array(3) } }, { baseModel: 'b' })).toThrow(
      `adapter matrix ${name} has 3 values, expected [32, 4]`,
    );
    const { [name]: _, ...rest } = a.weights;
    expect(() => exportPeftAdapter(cfg, { ...a, weights: rest }, { baseModel: 'b' })).toThrow(PeftError);
  });
});

describe('PEFT import', () => {
  it('round-trips every spec bit-exactly (property)', () => {
    const targets = fc.subarray([...ALL_LORA_TARGETS], { minLength: 1 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.double({ min: 0.5, max: 64, noNaN: true }),
        targets,
        fc.integer({ min: 0, max: 1000 }),
        (rank, alpha, t, seed) => {
          const a = adapter({ rank, alpha, targets: t as LoraTarget[] }, seed);
          const files = exportPeftAdapter(cfg, a, { baseModel: 'b' });
          const back = importPeftAdapter(cfg, { config: files[ADAPTER_CONFIG_FILE], weights: files[ADAPTER_WEIGHTS_FILE] });
          expect(back.spec).toEqual(a.spec);
          expect(Object.keys(back.weights).sort()).toEqual(Object.keys(a.weights).sort());
          for (const k of Object.keys(a.weights)) expect(bits(back.weights[k])).toEqual(bits(a.weights[k]));
        },
      ),
      { numRuns: 25 },
    );
  });

  /** A PEFT folder as Python would write it: config fields and tensors given by hand. */
  function peftFolder(conf: Record<string, unknown>, tensors: Record<string, { shape: number[]; data: Float32Array }>) {
    return { config: json({ peft_type: 'LORA', task_type: 'CAUSAL_LM', bias: 'none', ...conf }), weights: writeSafetensors(tensors), folder: 'ext/adapter' };
  }
  const t = (shape: number[], v = 0.5) => ({ shape, data: new Float32Array(shape[0] * shape[1]).fill(v) });

  it('loads layers_to_transform (untouched layers are exact zeros), module paths and rsLoRA α', () => {
    const folder = peftFolder(
      { r: 4, lora_alpha: 16, use_rslora: true, target_modules: ['self_attn.q_proj'], layers_to_transform: [1] },
      {
        [`${PEFT_PREFIX}model.layers.1.self_attn.q_proj.lora_A.weight`]: t([4, 64]),
        [`${PEFT_PREFIX}model.layers.1.self_attn.q_proj.lora_B.weight`]: t([64, 4], -1),
      },
    );
    const a = importPeftAdapter(cfg, folder);
    // rsLoRA scale α/√r = 16/2 = 8 = α'/r with α' = 32
    expect(a.spec).toEqual({ rank: 4, alpha: 32, targets: ['q_proj'] });
    expect(Array.from(a.weights['model.layers.0.self_attn.q_proj.lora_B.weight']).every((x) => x === 0)).toBe(true);
    expect(a.weights['model.layers.1.self_attn.q_proj.lora_B.weight'][0]).toBe(-1);
  });

  it('accepts target_modules "all-linear"', () => {
    const spec: LoraSpec = { rank: 2, alpha: 4, targets: ALL_LORA_TARGETS };
    const a = adapter(spec);
    const files = exportPeftAdapter(cfg, a, { baseModel: 'b' });
    const conf = { ...JSON.parse(new TextDecoder().decode(files[ADAPTER_CONFIG_FILE])), target_modules: 'all-linear' };
    expect(importPeftAdapter(cfg, { config: conf, weights: files[ADAPTER_WEIGHTS_FILE] }).spec.targets).toEqual(ALL_LORA_TARGETS);
  });

  it('names what does not fit the base', () => {
    const q = (r: number, l = 0) => ({
      [`${PEFT_PREFIX}model.layers.${l}.self_attn.q_proj.lora_A.weight`]: t([r, 64]),
      [`${PEFT_PREFIX}model.layers.${l}.self_attn.q_proj.lora_B.weight`]: t([64, r]),
    });
    const both = { ...q(4, 0), ...q(4, 1) };
    const err = (conf: Record<string, unknown>, tensors: Record<string, { shape: number[]; data: Float32Array }>) => {
      try {
        importPeftAdapter(cfg, peftFolder(conf, tensors));
      } catch (e) {
        expect((e as Error).name).toBe('PeftError');
        return e as PeftError;
      }
      throw new Error('no error');
    };
    const base = { r: 4, lora_alpha: 8, target_modules: ['q_proj'] };
    expect(err({ ...base, r: 8 }, both)).toMatchObject({
      code: 'shape-mismatch',
      message: expect.stringContaining('q_proj.lora_A.weight has shape [4, 64] but r = 8 on this base'),
    });
    expect(err({ ...base, target_modules: ['q_proj', 'lm_head'] }, both)).toMatchObject({
      code: 'unknown-target',
      message: expect.stringContaining('"lm_head" is not one of q_proj'),
    });
    expect(err({ ...base, target_modules: ['q_proj', 'k_proj'] }, both)).toMatchObject({
      code: 'missing-tensor',
      message: expect.stringContaining('model.layers.0.self_attn.k_proj.lora_A.weight is missing'),
    });
    expect(err(base, { ...both, 'base_model.model.lm_head.weight': t([4, 4]) })).toMatchObject({
      code: 'unexpected-tensor',
      file: 'ext/adapter/adapter_model.safetensors',
    });
    expect(err({ ...base, use_dora: true }, both)).toMatchObject({ code: 'unsupported', message: expect.stringContaining('DoRA') });
    expect(err({ ...base, modules_to_save: ['lm_head'] }, both)).toMatchObject({ code: 'unsupported' });
    expect(err({ ...base, peft_type: 'IA3' }, both)).toMatchObject({ code: 'unsupported', message: expect.stringContaining('only LORA') });
    const nan = { ...both };
    nan[`${PEFT_PREFIX}model.layers.1.self_attn.q_proj.lora_B.weight`] = { shape: [64, 4], data: new Float32Array(256).fill(NaN) };
    expect(err(base, nan)).toMatchObject({ code: 'non-finite' });
    expect(() => importPeftAdapter(cfg, { config: '{', weights: writeSafetensors(both) })).toThrow('adapter_config.json is not valid JSON');
  });
});

describe('half-precision safetensors', () => {
  it('widens hand-computed F16 and BF16 values exactly', () => {
    expect([0x3c00, 0xc000, 0x3555, 0x0001, 0x7c00, 0x0000].map(f16ToF32)).toEqual([1, -2, 0.333251953125, 2 ** -24, Infinity, 0]);
    expect([0x3f80, 0x4049, 0xbf00].map(bf16ToF32)).toEqual([1, 3.140625, -0.5]);
    // a file with one BF16 and one F32 tensor, laid out by hand
    const header = new TextEncoder().encode(
      JSON.stringify({ h: { dtype: 'BF16', shape: [2], data_offsets: [0, 4] }, f: { dtype: 'F32', shape: [1], data_offsets: [4, 8] } }),
    );
    const file = new Uint8Array(8 + header.length + 8);
    const dv = new DataView(file.buffer);
    dv.setBigUint64(0, BigInt(header.length), true);
    file.set(header, 8);
    dv.setUint16(8 + header.length, 0x3f80, true);
    dv.setUint16(8 + header.length + 2, 0x4049, true);
    dv.setFloat32(8 + header.length + 4, 2.5, true);
    const { tensors } = readSafetensorsWidened(file, 'x.safetensors');
    expect(tensors.h).toMatchObject({ dtype: 'F32', shape: [2] });
    expect(Array.from(tensors.h.data as Float32Array)).toEqual([1, 3.140625]);
    expect(Array.from(tensors.f.data as Float32Array)).toEqual([2.5]);
  });
});

describe('store adapters ⇄ PEFT', () => {
  it('an AdapterRow exports to PEFT and imports back to the same row fields', () => {
    const a = adapter(spec2);
    const row = { id: 'ad-1', baseModel: 'policy', ...adapterRowFields(a) };
    expect(row.tensors['model.layers.0.self_attn.v_proj.lora_B.weight'].dims).toEqual([32, 4]);
    const files = exportAdapterRow(cfg, row);
    const back = importAdapterRow(cfg, { config: files[ADAPTER_CONFIG_FILE], weights: files[ADAPTER_WEIGHTS_FILE] });
    expect(back.config).toEqual({ rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] });
    for (const k of Object.keys(a.weights)) expect(bits(back.tensors[k].data)).toEqual(bits(a.weights[k]));
    expect(() => adapterFromRow({ ...row, config: { rank: 4, alpha: 8, targets: ['wq'] } })).toThrow('config.targets must list projections');
  });
});
