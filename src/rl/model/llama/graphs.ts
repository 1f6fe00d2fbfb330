// Whole ONNX graphs around the forward emitter (emit.ts): prefill, decode with a KV cache, and the
// full-sequence scorer; the policy and the critic share them (the critic adds `heads: { value: true }`).
// Names follow Hugging Face Optimum's decoder exports: input_ids, position_ids,
// past_key_values.{l}.key/value in, logits and present.{l}.key/value out.
//   prefill: input_ids [B, S], position_ids [B, S], attention_bias [B, S, S]           → logits, present
//   decode:  the same with S new tokens (usually 1) after P cached ones, bias [B, S, P+S],
//            past_key_values.{l}.* [B, KV, P, hd]                                       → logits, present
//   score:   like prefill without the cache; `targets` [B, S] adds `logprobs` [B, S]
// A decode graph built with `cache: 'fresh'` returns new.{l}.key/value [B, KV, S, hd] (the new tokens'
// keys and values alone) instead of present: its caller keeps the cache in its own buffers and
// appends them, so the whole cache is not copied out of ONNX Runtime (and reallocated) every step.
import { GraphBuilder } from '../onnx/builder.ts';
import { headDim, type ModelConfig } from './config.ts';
import { emitForward, type ForwardOutputs } from './emit.ts';
import type { ParamSource } from './params.ts';
import type { HeadsSpec, LoraSpec, ParamSpec } from './weights.ts';

export type GraphKind = 'prefill' | 'decode' | 'score';

/** What graph to build. */
export interface GraphOptions {
  kind: GraphKind;
  params: ParamSource;
  /** LoRA adapters as graph inputs (rank 0 or absent: none). */
  lora?: LoraSpec;
  /** The critic's value head (output `values` [B, S]). */
  heads?: HeadsSpec;
  /** Default: 'last' for prefill and decode, 'all' for score. */
  logits?: 'all' | 'last' | 'none';
  /** score only: an int32 `targets` input [B, S] and a `logprobs` output [B, S]. */
  targets?: boolean;
  /** Graph name inside the ONNX file. */
  name?: string;
  /** decode only: output the whole cache ('present', default) or only the new tokens' keys/values ('fresh'). */
  cache?: 'present' | 'fresh';
}

/** A serialised graph and its interface. */
export interface BuiltGraph {
  bytes: Uint8Array;
  /** Every graph input name, in declaration order. */
  inputs: string[];
  /** Every graph output name. */
  outputs: string[];
  /** Model parameters that are graph inputs (placement 'input'). */
  paramInputs: ParamSpec[];
  /** LoRA matrices that are graph inputs. */
  loraInputs: ParamSpec[];
  nodeCount: number;
}

export const pastKeyName = (l: number): string => `past_key_values.${l}.key`;
export const pastValueName = (l: number): string => `past_key_values.${l}.value`;
export const presentKeyName = (l: number): string => `present.${l}.key`;
export const presentValueName = (l: number): string => `present.${l}.value`;
export const freshKeyName = (l: number): string => `new.${l}.key`;
export const freshValueName = (l: number): string => `new.${l}.value`;

/** Builds one graph of the model. */
export function buildGraph(cfg: ModelConfig, opts: GraphOptions): BuiltGraph {
  const g = new GraphBuilder(opts.name ?? `turnwise_llama_${opts.kind}`);
  const inputs: string[] = [];
  const declare = (name: string, type: 'int32' | 'float32', dims: (string | number)[]) => {
    inputs.push(g.input(name, type, dims));
    return name;
  };
  const kv = cfg.nKvHeads;
  const hd = headDim(cfg);
  const withPast = opts.kind === 'decode';
  const total = withPast ? 'total' : 'seq';
  const inputIds = declare('input_ids', 'int32', ['batch', 'seq']);
  const positionIds = declare('position_ids', 'int32', ['batch', 'seq']);
  const attentionBias = declare('attention_bias', 'float32', ['batch', 'seq', total]);
  const past = withPast
    ? Array.from({ length: cfg.nLayers }, (_, l) => ({
        key: declare(pastKeyName(l), 'float32', ['batch', kv, 'past', hd]),
        value: declare(pastValueName(l), 'float32', ['batch', kv, 'past', hd]),
      }))
    : undefined;
  const wantTargets = opts.kind === 'score' && !!opts.targets;
  const targets = wantTargets ? declare('targets', 'int32', ['batch', 'seq']) : undefined;
  const logits = opts.logits ?? (opts.kind === 'score' ? 'all' : 'last');

  const out: ForwardOutputs = emitForward(
    g,
    cfg,
    { inputIds, positionIds, attentionBias, past, targets },
    { params: opts.params, lora: opts.lora, heads: opts.heads, logits },
  );
  for (const p of [...out.paramInputs, ...out.loraInputs]) inputs.push(p.name);

  const outputs: string[] = [];
  const emitOut = (value: string, name: string, dims: (string | number)[]) => {
    g.node('Identity', [value], [name]);
    outputs.push(g.output(name, 'float32', dims));
  };
  if (out.logits) emitOut(out.logits, 'logits', ['batch', logits === 'last' ? 1 : 'seq', cfg.vocabSize]);
  if (out.logprobs) emitOut(out.logprobs, 'logprobs', ['batch', 'seq']);
  if (out.values) emitOut(out.values, 'values', ['batch', 'seq']);
  if (opts.kind === 'decode' && opts.cache === 'fresh') {
    out.fresh.forEach((p, l) => {
      emitOut(p.key, freshKeyName(l), ['batch', kv, 'seq', hd]);
      emitOut(p.value, freshValueName(l), ['batch', kv, 'seq', hd]);
    });
  } else if (opts.kind !== 'score') {
    out.present.forEach((p, l) => {
      emitOut(p.key, presentKeyName(l), ['batch', kv, total, hd]);
      emitOut(p.value, presentValueName(l), ['batch', kv, total, hd]);
    });
  }
  return { bytes: g.toBytes(), inputs, outputs, paramInputs: out.paramInputs, loraInputs: out.loraInputs, nodeCount: g.nodeCount };
}
