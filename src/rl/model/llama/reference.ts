// A plain float64 TypeScript forward pass of the same decoder, written independently of the graph
// emitter (loops, no ONNX): the second implementation the graphs are checked against (docs/style.md 2).
// One unpadded sequence at positions 0 … S−1 with causal attention; Hugging Face weight layout.
import { headDim, type ModelConfig } from './config.ts';
import { loraParams, projName, valueHeadDelta, type HeadsSpec, type LoraSpec, type LoraTarget, type ModelWeights } from './weights.ts';

export interface ReferenceOptions {
  lora?: LoraSpec;
  /** PEFT-named A/B matrices for `lora`. */
  loraWeights?: ModelWeights;
  heads?: HeadsSpec;
}

export interface ReferenceOutput {
  /** [S × V] */
  logits: Float64Array;
  /** [S], when the value head is on. */
  values?: Float64Array;
}

/** y [rows × out] = x [rows × in] · Wᵀ, W [out × in] */
function matmulT(x: Float64Array, rows: number, inp: number, w: ArrayLike<number>, out: number): Float64Array {
  const y = new Float64Array(rows * out);
  for (let r = 0; r < rows; r++) {
    for (let o = 0; o < out; o++) {
      let acc = 0;
      for (let i = 0; i < inp; i++) acc += x[r * inp + i] * w[o * inp + i];
      y[r * out + o] = acc;
    }
  }
  return y;
}

function rmsNorm(x: Float64Array, rows: number, d: number, w: ArrayLike<number>, eps: number): Float64Array {
  const y = new Float64Array(x.length);
  for (let r = 0; r < rows; r++) {
    let ss = 0;
    for (let i = 0; i < d; i++) ss += x[r * d + i] ** 2;
    const inv = 1 / Math.sqrt(ss / d + eps);
    for (let i = 0; i < d; i++) y[r * d + i] = x[r * d + i] * inv * w[i];
  }
  return y;
}

/** Rotates each head of x [S × heads·hd] in place, HF rotate_half convention. */
function rope(x: Float64Array, seq: number, heads: number, hd: number, theta: number): void {
  const half = hd / 2;
  for (let p = 0; p < seq; p++) {
    for (let h = 0; h < heads; h++) {
      const base = p * heads * hd + h * hd;
      for (let i = 0; i < half; i++) {
        const a = p / Math.pow(theta, (2 * i) / hd);
        const x1 = x[base + i];
        const x2 = x[base + i + half];
        x[base + i] = x1 * Math.cos(a) - x2 * Math.sin(a);
        x[base + i + half] = x2 * Math.cos(a) + x1 * Math.sin(a);
      }
    }
  }
}

/** Runs the decoder on one sequence. */
export function referenceForward(cfg: ModelConfig, w: ModelWeights, tokens: readonly number[], opts: ReferenceOptions = {}): ReferenceOutput {
  const S = tokens.length;
  const d = cfg.dModel;
  const hd = headDim(cfg);
  const H = cfg.nHeads;
  const KV = cfg.nKvHeads;
  const adapters = new Map(loraParams(cfg, opts.lora).map((p) => [projName(p.layer, p.target), p]));
  const scale = opts.lora && opts.lora.rank > 0 ? opts.lora.alpha / opts.lora.rank : 0;

  const linear = (x: Float64Array, l: number, proj: LoraTarget, out: number, inp: number): Float64Array => {
    const name = projName(l, proj);
    const y = matmulT(x, S, inp, w[name], out);
    const ad = adapters.get(name);
    if (ad && opts.loraWeights) {
      const r = ad.a.shape[0];
      const xa = matmulT(x, S, inp, opts.loraWeights[ad.a.name], r);
      const xab = matmulT(xa, S, r, opts.loraWeights[ad.b.name], out);
      for (let i = 0; i < y.length; i++) y[i] += scale * xab[i];
    }
    return y;
  };

  let x = new Float64Array(S * d);
  const emb = w['model.embed_tokens.weight'];
  tokens.forEach((t, p) => {
    for (let i = 0; i < d; i++) x[p * d + i] = emb[t * d + i];
  });

  for (let l = 0; l < cfg.nLayers; l++) {
    const n = rmsNorm(x, S, d, w[`model.layers.${l}.input_layernorm.weight`], cfg.normEps);
    const q = linear(n, l, 'q_proj', H * hd, d);
    const k = linear(n, l, 'k_proj', KV * hd, d);
    const v = linear(n, l, 'v_proj', KV * hd, d);
    rope(q, S, H, hd, cfg.ropeTheta);
    rope(k, S, KV, hd, cfg.ropeTheta);
    const ctx = new Float64Array(S * H * hd);
    for (let h = 0; h < H; h++) {
      const kh = Math.floor(h / (H / KV)); // grouped-query: query head h reads kv head h / (H/KV)
      for (let i = 0; i < S; i++) {
        const scores = new Float64Array(i + 1);
        let max = -Infinity;
        for (let j = 0; j <= i; j++) {
          let dot = 0;
          for (let c = 0; c < hd; c++) dot += q[i * H * hd + h * hd + c] * k[j * KV * hd + kh * hd + c];
          scores[j] = dot / Math.sqrt(hd);
          max = Math.max(max, scores[j]);
        }
        let sum = 0;
        for (let j = 0; j <= i; j++) sum += scores[j] = Math.exp(scores[j] - max);
        for (let j = 0; j <= i; j++) {
          for (let c = 0; c < hd; c++) ctx[i * H * hd + h * hd + c] += (scores[j] / sum) * v[j * KV * hd + kh * hd + c];
        }
      }
    }
    const attn = linear(ctx, l, 'o_proj', d, H * hd);
    const x1 = x.map((xi, i) => xi + attn[i]);
    const n2 = rmsNorm(x1, S, d, w[`model.layers.${l}.post_attention_layernorm.weight`], cfg.normEps);
    const gate = linear(n2, l, 'gate_proj', cfg.dFf, d);
    const up = linear(n2, l, 'up_proj', cfg.dFf, d);
    const act = gate.map((gv, i) => (gv / (1 + Math.exp(-gv))) * up[i]);
    const down = linear(act, l, 'down_proj', d, cfg.dFf);
    x = x1.map((xi, i) => xi + down[i]);
  }
  const hN = rmsNorm(x, S, d, w['model.norm.weight'], cfg.normEps);
  const headW = cfg.tieEmbeddings ? emb : w['lm_head.weight'];
  const out: ReferenceOutput = { logits: matmulT(hN, S, d, headW, cfg.vocabSize) };
  if (opts.heads?.value) {
    // the adapter's value-head delta (weights.ts valueHeadDelta), as emit.ts adds it
    const [dw, db] = valueHeadDelta(cfg).map((s) => (opts.lora && opts.lora.rank > 0 ? opts.loraWeights?.[s.name] : undefined));
    const vw = dw ? w['v_head.summary.weight'].map((x, i) => x + dw[i]) : w['v_head.summary.weight'];
    const vb = w['v_head.summary.bias'][0] + (db ? db[0] : 0);
    out.values = matmulT(hN, S, d, vw, 1).map((v) => v + vb);
  }
  return out;
}

/** log softmax of each row of logits [rows × V], for target log-prob checks. */
export function logSoftmaxRows(logits: ArrayLike<number>, rows: number, vocab: number): Float64Array {
  const out = new Float64Array(rows * vocab);
  for (let r = 0; r < rows; r++) {
    let max = -Infinity;
    for (let i = 0; i < vocab; i++) max = Math.max(max, logits[r * vocab + i]);
    let sum = 0;
    for (let i = 0; i < vocab; i++) sum += Math.exp(logits[r * vocab + i] - max);
    const lse = max + Math.log(sum);
    for (let i = 0; i < vocab; i++) out[r * vocab + i] = logits[r * vocab + i] - lse;
  }
  return out;
}
