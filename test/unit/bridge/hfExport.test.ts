import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hfExportFiles, expectedLlamaKeys, ADAPTER_DIR } from '../../../src/rl/bridge/hfExport.ts';
import { CHECK_FILE, type LogitsCheck } from '../../../src/rl/bridge/check.ts';
import { ADAPTER_CONFIG_FILE, ADAPTER_WEIGHTS_FILE, importPeftAdapter } from '../../../src/rl/bridge/peft.ts';
import { loadModel, loadModelFolderUnverified, type LoadedModel } from '../../../src/rl/model/folder/folder.ts';
import { memoryFolder } from '../../../src/rl/model/folder/io.ts';
import { prefillFeeds, leftPad } from '../../../src/rl/model/llama/feeds.ts';
import { blocksQuant4, paramSource } from '../../../src/rl/model/llama/params.ts';
import { Stepper } from '../../../src/rl/runtime/engine/stepper.ts';
import { paramSpecs } from '../../../src/rl/model/llama/weights.ts';
import { readSafetensors } from '../../../src/rl/model/safetensors.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { initCheckAdapter } from '../../../src/cli/commands/export-model.ts';
import { cfg, forgedFolder, tok, weights } from './fixture.ts';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytesOf = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
const adapter = { id: 'ad-7', ...initCheckAdapter(cfg, 7, 4) };

let model: LoadedModel;
let files: Record<string, Uint8Array>;
let runtime: OrtRuntime;

/** The export folder's files as a memory folder under `out/`. */
function asFolder(f: Record<string, Uint8Array>) {
  const mem = memoryFolder();
  for (const [p, b] of Object.entries(f)) mem.files.set(`out/${p}`, b);
  return mem;
}

beforeAll(async () => {
  model = await loadModel((await forgedFolder()).read, 'policy');
  files = hfExportFiles({ model, name: 'tiny', adapter });
  runtime = await OrtRuntime.create('wasm');
});
afterAll(async () => {
  expect(runtime.liveSessions).toBe(0);
  await runtime.dispose();
});

describe('Hugging Face export folder', () => {
  it('holds every file transformers, PEFT and the lab need', () => {
    expect(Object.keys(files).sort()).toEqual([
      'README.md',
      `${ADAPTER_DIR}/${ADAPTER_CONFIG_FILE}`,
      `${ADAPTER_DIR}/${ADAPTER_WEIGHTS_FILE}`,
      'config.json',
      'generation_config.json',
      'model.safetensors',
      'onnx/decode_q4.onnx',
      'onnx/prefill_q4.onnx',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
      CHECK_FILE,
    ]);
    expect(JSON.parse(text(files['config.json']))).toMatchObject({
      architectures: ['LlamaForCausalLM'],
      model_type: 'llama',
      vocab_size: tok.vocabSize,
      hidden_size: 64,
      intermediate_size: 96,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      num_key_value_heads: 2,
      head_dim: 16,
      rope_theta: 10000,
      rms_norm_eps: 1e-5,
      max_position_embeddings: 96,
      tie_word_embeddings: true,
      hidden_act: 'silu',
      bos_token_id: 1,
      eos_token_id: 2,
      pad_token_id: 0,
    });
    expect(JSON.parse(text(files['generation_config.json']))).toMatchObject({
      bos_token_id: 1,
      eos_token_id: 2,
      pad_token_id: 0,
      max_new_tokens: 24,
      top_k: 0,
    });
    expect(JSON.parse(text(files['tokenizer_config.json'])).chat_template).toContain("{% if add_generation_prompt %}{{ '<|agent|>' }}{% endif %}");
    expect(JSON.parse(text(files[`${ADAPTER_DIR}/${ADAPTER_CONFIG_FILE}`])).base_model_name_or_path).toBe('tiny');
    expect(text(files['README.md'])).toContain('PeftModel.from_pretrained(model, f"{path}/adapter")');
  });

  it('model.safetensors has exactly the Llama key set, HF shapes, F32, and round-trips bit-exactly', () => {
    const { tensors } = readSafetensors(files['model.safetensors']);
    // the tied LM head has no lm_head.weight; 1 embedding + 9 per layer + final norm
    expect(Object.keys(tensors).sort()).toEqual(expectedLlamaKeys(cfg));
    expect(expectedLlamaKeys(cfg)).toHaveLength(1 + 2 * 9 + 1);
    expect(expectedLlamaKeys(cfg)).toContain('model.layers.1.mlp.down_proj.weight');
    for (const s of paramSpecs(cfg)) {
      expect(tensors[s.name].dtype).toBe('F32');
      expect(tensors[s.name].shape).toEqual(s.shape);
      expect(bytesOf(tensors[s.name].data as Float32Array)).toEqual(bytesOf(weights[s.name]));
    }
    expect(tensors['model.layers.0.self_attn.k_proj.weight'].shape).toEqual([32, 64]);
  });

  it('loads back into the lab as a plain Hugging Face folder, adapter included', async () => {
    const back = await loadModelFolderUnverified(asFolder(files).read, 'out');
    expect(back.config).toEqual(cfg);
    expect(back.tokenizer.vocab).toEqual(tok.vocab);
    const a = importPeftAdapter(back.config, {
      config: files[`${ADAPTER_DIR}/${ADAPTER_CONFIG_FILE}`],
      weights: files[`${ADAPTER_DIR}/${ADAPTER_WEIGHTS_FILE}`],
    });
    expect(a.spec).toEqual(adapter.spec);
    for (const k of Object.keys(adapter.weights)) expect(bytesOf(a.weights[k])).toEqual(bytesOf(adapter.weights[k]));
  });
});

describe('same logits from re-imported safetensors as from the ONNX files', () => {
  const check = () => JSON.parse(text(files[CHECK_FILE])) as LogitsCheck;

  it('graphs rebuilt from the export equal the shipped 4-bit ONNX prefill graph exactly', async () => {
    const back = await loadModelFolderUnverified(asFolder(files).read, 'out');
    const ids = check().input_ids;
    const shipped = await runtime.createSession(model.files['onnx/prefill_q4.onnx'], { label: 'shipped.prefill' });
    const runner = await Stepper.create(runtime, back.config, paramSource(back.weights, blocksQuant4), { label: 'reimported' });
    try {
      const fromOnnx = (await shipped.run(prefillFeeds(cfg, leftPad([ids], 0)))).logits.data as Float32Array;
      const fromExport = (await runner.prefill([ids])).logits;
      expect(fromExport.length).toBe(cfg.vocabSize);
      expect(fromExport.every(Number.isFinite)).toBe(true);
      expect(Array.from(fromExport)).toEqual(Array.from(fromOnnx));
    } finally {
      await shipped.dispose();
      await runner.dispose();
    }
  });

  it('the fp32 engine with the re-imported adapter matches turnwise_check.json (what transformers + PEFT must reproduce)', async () => {
    const c = check();
    const back = await loadModelFolderUnverified(asFolder(files).read, 'out');
    const a = importPeftAdapter(back.config, {
      config: files[`${ADAPTER_DIR}/${ADAPTER_CONFIG_FILE}`],
      weights: files[`${ADAPTER_DIR}/${ADAPTER_WEIGHTS_FILE}`],
    });
    const runner = await Stepper.create(runtime, back.config, paramSource(back.weights, 'const'), { lora: a.spec, label: 'fp32+lora' });
    try {
      const feeds = Object.fromEntries(
        Object.entries(a.weights).map(([k, w]) => [
          k,
          { type: 'float32' as const, data: w, dims: k.includes('lora_A') ? [a.spec.rank, w.length / a.spec.rank] : [w.length / a.spec.rank, a.spec.rank] },
        ]),
      );
      runner.extraFeeds = feeds;
      const withAdapter = (await runner.prefill([c.input_ids])).logits;
      runner.extraFeeds = Object.fromEntries(Object.entries(feeds).map(([k, f]) => [k, { ...f, data: new Float32Array(f.data.length) }]));
      const base = (await runner.prefill([c.input_ids])).logits;
      const maxDiff = (x: Float32Array, y: number[]) => Math.max(...y.map((v, i) => Math.abs(v - x[i])));
      expect(maxDiff(withAdapter, c.adapter!.last_logits)).toBeLessThan(1e-4);
      expect(maxDiff(base, c.base.last_logits)).toBeLessThan(1e-4);
      // the adapter matters: otherwise this test could not tell a dropped adapter from a loaded one
      expect(maxDiff(base, c.adapter!.last_logits)).toBeGreaterThan(1e-3);
    } finally {
      await runner.dispose();
    }
  });

  it("--weights engine writes the 4-bit values: their fp32 reference equals the ONNX graph's logits", async () => {
    const engine = hfExportFiles({ model, weights: 'engine', includeOnnx: false });
    expect(Object.keys(engine).some((p) => p.startsWith('onnx/'))).toBe(false);
    const c = JSON.parse(text(engine[CHECK_FILE])) as LogitsCheck;
    expect(c.weights).toBe('engine');
    const shipped = await runtime.createSession(model.files['onnx/prefill_q4.onnx'], { label: 'shipped.prefill' });
    try {
      const fromOnnx = (await shipped.run(prefillFeeds(cfg, leftPad([c.input_ids], 0)))).logits.data as Float32Array;
      expect(Math.max(...c.base.last_logits.map((v, i) => Math.abs(v - fromOnnx[i])))).toBeLessThan(1e-4);
      const master = check().base.last_logits;
      // …whereas the master weights differ from the 4-bit graph by the quantisation error
      expect(Math.max(...master.map((v, i) => Math.abs(v - fromOnnx[i])))).toBeGreaterThan(1e-4);
    } finally {
      await shipped.dispose();
    }
  });
});
