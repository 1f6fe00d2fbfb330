// The README.md model card of an export folder (Hugging Face model-card conventions: YAML front
// matter with library_name, tags and base_model, then prose): what the model is, which file is which,
// how to load it in transformers + PEFT, the chat template, and how the weights relate to the lab's
// 4-bit graphs.
import type { ModelConfig } from '../model/llama/config.ts';
import { countParams, type HeadsSpec, type LoraSpec } from '../model/llama/weights.ts';

export interface ModelCardInput {
  name: string;
  config: ModelConfig;
  heads: HeadsSpec;
  weights: 'master' | 'engine';
  adapter?: { id: string; spec: LoraSpec };
  /** config.json's "turnwise" section of the source model (role, seed, held-out figures…). */
  turnwise?: Record<string, unknown>;
  command?: string;
  /** Paths in the folder. */
  files: string[];
}

export function modelCard(c: ModelCardInput): string {
  const cfg = c.config;
  const role = c.turnwise?.role ?? (c.heads.value ? 'critic' : 'policy');
  const lines = [
    '---',
    'library_name: transformers',
    'pipeline_tag: text-generation',
    'tags: [turnwise, llama, multi-turn-rl' + (c.adapter ? ', peft, lora' : '') + ']',
    '---',
    '',
    `# ${c.name}`,
    '',
    `A Turnwise ${role}: a Llama-style decoder (${countParams(cfg, c.heads).toLocaleString('en-US')} parameters; hidden ${cfg.dModel}, ${cfg.nLayers} layers, ${cfg.nHeads} heads` +
      `${cfg.nKvHeads !== cfg.nHeads ? ` / ${cfg.nKvHeads} kv heads` : ''}, SwiGLU ${cfg.dFf}, RoPE θ ${cfg.ropeTheta}, context ${cfg.maxSeq} tokens, vocabulary ${cfg.vocabSize}` +
      `${cfg.tieEmbeddings ? ', tied embeddings' : ''}), exported from the Turnwise lab${c.command ? ` with \`${c.command}\`` : ''}.`,
    '',
    '## Files',
    '',
    '| file | what |',
    '|---|---|',
    '| `config.json` | `LlamaConfig` (`model_type: "llama"`); the `turnwise` section is ignored by transformers |',
    '| `generation_config.json` | special ids; sampling as the lab samples (temperature 1, no top-k/top-p) |',
    `| \`model.safetensors\` | float32 weights, Hugging Face Llama names${c.weights === 'engine' ? ' — the 4-bit values the lab computes with, dequantised' : ' — the full-precision weights (the lab runs 4-bit copies of the block linears)'} |`,
    '| `tokenizer.json`, `tokenizer_config.json`, `special_tokens_map.json` | word-level BPE with byte fallback; `chat_template` |',
    ...(c.adapter
      ? [
          `| \`adapter/\` | PEFT LoRA adapter \`${c.adapter.id}\`: r = ${c.adapter.spec.rank}, α = ${c.adapter.spec.alpha}, targets ${c.adapter.spec.targets.join(', ')} |`,
        ]
      : []),
    '| `turnwise_check.json` | a sample episode, its ids, and reference logits to compare against |',
    ...(c.files.some((f) => f.startsWith('onnx/')) ? ["| `onnx/` | the lab's own 4-bit prefill/decode graphs (onnxruntime) |"] : []),
    '',
    '## Load it',
    '',
    '```python',
    'import torch',
    'from transformers import AutoModelForCausalLM, AutoTokenizer',
    ...(c.adapter ? ['from peft import PeftModel'] : []),
    '',
    'path = "."  # this folder',
    'tok = AutoTokenizer.from_pretrained(path)',
    'model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32)',
    ...(c.adapter ? ['model = PeftModel.from_pretrained(model, f"{path}/adapter")'] : []),
    'messages = [{"role": "system", "content": "Guess the animal I am thinking of. ..."}]',
    'ids = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt")',
    'out = model.generate(ids, max_new_tokens=32)',
    'print(tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True))',
    '```',
    '',
    '`python recipes/check_export.py --model .` (in the Turnwise repository) compares this folder in',
    'transformers (+ PEFT) against `turnwise_check.json`.',
    '',
    '## Chat template',
    '',
    '`<|bos|>` then, per message, `<|role|>content<|end|>`; roles `system` (task prompt), `user`',
    '(collaborator or environment), `agent` (the policy; Hugging Face `assistant` is rendered as',
    '`agent`), `hidden` (training-time information for the asymmetric critic only). With',
    '`add_generation_prompt` the text ends with `<|agent|>`; a reply ends with `<|end|>` (the eos token).',
    'The lab encodes message text literally, while tokenizers parse `<|…|>` inside content as special',
    'tokens: the two agree on every episode whose text does not spell a special token.',
    '',
    ...(c.heads.value
      ? [
          '## Value head',
          '',
          "`v_head.summary.weight`/`bias` follow TRL's `AutoModelForCausalLMWithValueHead`; plain `AutoModelForCausalLM` ignores them (with a warning).",
          '',
        ]
      : []),
  ];
  return lines.join('\n');
}
