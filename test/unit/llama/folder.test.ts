import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadModel, loadModelFolderUnverified, writeManifest, writeModelFolder } from '../../../src/rl/model/folder/folder.ts';
import { memoryFolder } from '../../../src/rl/model/folder/io.ts';
import { nodeReader, nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { readSafetensors, writeSafetensors, SafetensorsError } from '../../../src/rl/model/safetensors.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { initWeights } from '../../../src/rl/model/llama/weights.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';

const tok = fitTokenizer(['Does it fly? Yes.', 'Does it swim? No.'], { minCount: 2 });
const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 32, nLayers: 1, nHeads: 2, dFf: 64, maxSeq: 32 });
const weights = initWeights(cfg, 3, { heads: { value: true } });

async function forged() {
  const mem = memoryFolder();
  const policy = await writeModelFolder(mem.write, 'policy', {
    config: cfg,
    tokenizer: tok,
    weights,
    heads: { value: true },
    turnwise: { role: 'critic' },
    files: { 'onnx/x.onnx': Uint8Array.of(1, 2, 3) },
  });
  await writeManifest(mem.write, { policy }, { seed: 1, command: 'test', date: '2026-01-01' });
  return mem;
}

describe('safetensors', () => {
  it('writes the documented layout by hand and reads it back', () => {
    const bytes = writeSafetensors({ b: { shape: [2], data: Float32Array.of(1.5, -2) }, a: { shape: [1, 3], data: Uint8Array.of(7, 8, 9) } }, { format: 'pt' });
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(n % 8).toBe(0);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
    expect(header.a).toEqual({ dtype: 'U8', shape: [1, 3], data_offsets: [0, 3] });
    expect(header.b).toEqual({ dtype: 'F32', shape: [2], data_offsets: [3, 11] });
    const back = readSafetensors(bytes);
    expect(Array.from(back.tensors.b.data as Float32Array)).toEqual([1.5, -2]);
    expect(back.metadata).toEqual({ format: 'pt' });
    expect(() => readSafetensors(bytes.subarray(0, bytes.length - 1), 'w.safetensors')).toThrow(SafetensorsError);
    expect(() => readSafetensors(bytes.subarray(0, bytes.length - 1), 'w.safetensors')).toThrow('w.safetensors: tensor b offsets [3, 11]');
  });
});

describe('model folder', () => {
  it('writes a Hugging Face layout and loads it back verified', async () => {
    const mem = await forged();
    expect([...mem.files.keys()].sort()).toEqual([
      'manifest.json',
      'policy/config.json',
      'policy/model.safetensors',
      'policy/onnx/x.onnx',
      'policy/tokenizer.json',
      'policy/tokenizer_config.json',
    ]);
    const config = JSON.parse(new TextDecoder().decode(mem.files.get('policy/config.json')));
    expect(config).toMatchObject({
      model_type: 'llama',
      hidden_size: 32,
      num_hidden_layers: 1,
      vocab_size: tok.vocabSize,
      eos_token_id: tok.special.end,
      turnwise: { role: 'critic' },
    });
    const st = readSafetensors(mem.files.get('policy/model.safetensors')!);
    expect(st.tensors['model.layers.0.self_attn.q_proj.weight'].shape).toEqual([32, 32]);
    const m = await loadModel(mem.read, 'policy');
    expect(m.config).toEqual(cfg);
    expect(m.tokenizer.vocab).toEqual(tok.vocab);
    expect(m.heads.value).toBe(true);
    expect(Array.from(m.weights['model.layers.0.mlp.up_proj.weight'])).toEqual(Array.from(weights['model.layers.0.mlp.up_proj.weight']));
    expect(Array.from(m.files['onnx/x.onnx'])).toEqual([1, 2, 3]);
    const plain = await loadModelFolderUnverified(mem.read, 'policy');
    expect(plain.config).toEqual(cfg);
  });

  it('names the path of a missing file or a sha256 mismatch', async () => {
    const mem = await forged();
    mem.files.delete('policy/tokenizer.json');
    await expect(loadModel(mem.read, 'policy')).rejects.toMatchObject({ name: 'ModelFileError', code: 'missing', path: 'policy/tokenizer.json' });

    const bad = await forged();
    const w = bad.files.get('policy/model.safetensors')!;
    w[w.length - 1] ^= 1; // same size, different bytes
    await expect(loadModel(bad.read, 'policy')).rejects.toThrow('model file policy/model.safetensors fails its sha256 check');
    await expect(loadModel(bad.read, 'critic')).rejects.toThrow('manifest.json lists no model "critic"');
    await expect(loadModel(memoryFolder().read, 'policy')).rejects.toMatchObject({ name: 'ModelFileError', path: 'manifest.json' });
  });

  it('names a folder whose files disagree (vocab size) even without a manifest', async () => {
    const mem = await forged();
    const c = JSON.parse(new TextDecoder().decode(mem.files.get('policy/config.json')));
    c.vocab_size += 1;
    mem.files.set('policy/config.json', new TextEncoder().encode(JSON.stringify(c)));
    await expect(loadModelFolderUnverified(mem.read, 'policy')).rejects.toMatchObject({
      name: 'ModelFileError',
      code: 'corrupt',
      path: 'policy/tokenizer.json',
    });
  });

  it('works over the Node file system', async () => {
    const root = await mkdtemp(join(tmpdir(), 'turnwise-folder-'));
    try {
      const write = nodeWriter(root);
      const policy = await writeModelFolder(write, 'policy', { config: cfg, tokenizer: tok, weights, heads: { value: true } });
      await writeManifest(write, { policy });
      expect((await loadModel(nodeReader(root), 'policy')).config).toEqual(cfg);
      await writeFile(join(root, 'policy/config.json'), '{}');
      await expect(loadModel(nodeReader(root), 'policy')).rejects.toMatchObject({ name: 'ModelFileError', code: 'corrupt', path: 'policy/config.json' });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
