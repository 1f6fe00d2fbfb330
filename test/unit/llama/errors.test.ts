import { describe, expect, it } from 'vitest';
import { ConfigError, assertQuantisable, fromHfConfig, toHfConfig, validateConfig } from '../../../src/rl/model/llama/config.ts';
import { TokenRangeError, SequenceError, causalBias, leftPad, positionsFor, prefillFeeds, targetFeed } from '../../../src/rl/model/llama/feeds.ts';
import { paramSource, WeightError } from '../../../src/rl/model/llama/params.ts';
import { buildGraph } from '../../../src/rl/model/llama/graphs.ts';
import { countParams, initWeights } from '../../../src/rl/model/llama/weights.ts';
import { TINY } from './helpers.ts';

const base = { vocabSize: 10, dModel: 64, nLayers: 1, nHeads: 4, dFf: 96, maxSeq: 8 };

describe('model config', () => {
  it('names the field when heads do not divide the width, kv heads do not divide heads, or a size is bad', () => {
    expect(() => validateConfig({ ...base, nHeads: 3 })).toThrow(ConfigError);
    expect(() => validateConfig({ ...base, nHeads: 3 })).toThrow('nHeads 3 does not divide dModel 64');
    expect(() => validateConfig({ ...base, nKvHeads: 3 })).toThrow('nKvHeads 3 does not divide nHeads 4');
    expect(() => validateConfig({ ...base, nLayers: 0 })).toThrow('nLayers must be a positive integer, got 0');
    expect(() => validateConfig({ ...base, dModel: 12, nHeads: 4 })).toThrow('head dimension 3 must be even');
    expect(() => validateConfig({ ...base, normEps: 0 })).toThrow('normEps must be > 0');
    let thrown: unknown = null;
    try {
      validateConfig({ ...base, nHeads: 5 });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ name: 'ConfigError', code: 'heads-divide-width', field: 'nHeads' });
  });

  it('says when a width cannot be stored as 4-bit blocks', () => {
    expect(() => assertQuantisable(validateConfig({ ...base, dFf: 80 }))).toThrow('dFf 80 is not a multiple of 32');
    expect(() => assertQuantisable(validateConfig({ ...base, dFf: 128 }))).not.toThrow();
  });

  it('round-trips through a Hugging Face LlamaConfig', () => {
    const hf = toHfConfig(TINY, { bos: 1, eos: 2, pad: 0 }, { seed: 3 });
    expect(hf).toMatchObject({ model_type: 'llama', hidden_size: 32, num_key_value_heads: 2, intermediate_size: 64, tie_word_embeddings: true });
    const back = fromHfConfig(JSON.parse(JSON.stringify(hf)));
    expect(back.config).toEqual(TINY);
    expect(back.ids).toEqual({ bos: 1, eos: 2, pad: 0 });
    expect(back.turnwise).toEqual({ seed: 3 });
    expect(() => fromHfConfig({ model_type: 'gpt2' })).toThrow('model_type must be "llama"');
  });

  it('counts parameters by hand for a tiny config', () => {
    // embed 50·32 + per layer (2 norms 64 + q 1024 + k 512 + v 512 + o 1024 + 3·2048) + final norm 32
    expect(countParams(TINY)).toBe(1600 + 2 * (64 + 1024 + 512 + 512 + 1024 + 3 * 2048) + 32);
  });
});

describe('feeds are checked before any run', () => {
  it('names an out-of-range token id and where it is', () => {
    const b = leftPad(
      [
        [1, 2],
        [3, 50, 4],
      ],
      0,
    );
    expect(() => prefillFeeds(TINY, b)).toThrow(TokenRangeError);
    expect(() => prefillFeeds(TINY, b)).toThrow('input_ids[1, 1] = 50 is outside the vocabulary [0, 50)');
    expect(() => prefillFeeds(TINY, leftPad([[-1]], 0))).toThrow('input_ids[0, 0] = -1');
    expect(() => targetFeed(TINY, Int32Array.of(-1, 7, 51), 1, 3)).toThrow('targets[0, 2] = 51');
  });

  it('refuses positions past the context', () => {
    const long = Array.from({ length: TINY.maxSeq + 1 }, () => 1);
    expect(() => prefillFeeds(TINY, leftPad([long], 0))).toThrow(SequenceError);
    expect(() => prefillFeeds(TINY, leftPad([long], 0))).toThrow('position_ids[0, 64] = 64 is outside');
  });

  it('builds the causal bias and positions of a left-padded batch by hand', () => {
    const b = leftPad([[7], [8, 9]], 0);
    expect(Array.from(b.ids)).toEqual([0, 7, 8, 9]);
    expect(Array.from(positionsFor(b.mask, 2, 2).positions)).toEqual([0, 0, 0, 1]);
    const bias = causalBias(b.mask, 2, 2, 2);
    const N = -1e9;
    expect(Array.from(bias)).toEqual([N, N, N, 0, 0, N, 0, 0]);
  });

  it('names a missing weight', () => {
    const w = initWeights(TINY, 1);
    delete w['model.layers.1.mlp.up_proj.weight'];
    expect(() => buildGraph(TINY, { kind: 'score', params: paramSource(w, 'const') })).toThrow(WeightError);
    expect(() => buildGraph(TINY, { kind: 'score', params: paramSource(w, 'const') })).toThrow('weight model.layers.1.mlp.up_proj.weight is missing');
  });
});
