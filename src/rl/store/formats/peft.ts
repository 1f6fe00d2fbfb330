// Adapters in the store (AdapterRow, db.ts) ⇄ PEFT LoRA folders. The PEFT format itself lives in one
// place, src/rl/bridge/peft.ts (key names, adapter_config.json, import checks); this module only
// converts the store's row shape — config {rank, alpha, targets}, tensors {name: {dims, data}} in
// PEFT names without `base_model.model.` — to and from the engine's LoraAdapter, and re-exports the rest.
import type { ModelConfig } from '../../model/llama/config.ts';
import { ALL_LORA_TARGETS, type LoraTarget } from '../../model/llama/weights.ts';
import { exportPeftAdapter, importPeftAdapter, PEFT_PREFIX, PeftError, type LoraAdapter, type PeftFiles } from '../../bridge/peft.ts';
import type { AdapterRow, AdapterTensor } from '../db.ts';
import type { JsonObject } from '../schema.ts';

export type { LoraAdapter } from '../../bridge/peft.ts';

/** The store's `config` and `tensors` fields for an adapter (what the trainer passes to putAdapter). */
export function adapterRowFields(adapter: LoraAdapter): { config: JsonObject; tensors: Record<string, AdapterTensor> } {
  const tensors: Record<string, AdapterTensor> = {};
  for (const [name, data] of Object.entries(adapter.weights)) {
    const [, which] = /\.lora_([AB])\.weight$/.exec(name) ?? [];
    const r = adapter.spec.rank;
    tensors[name] = { dims: which === 'A' ? [r, data.length / r] : [data.length / r, r], data };
  }
  return { config: { rank: adapter.spec.rank, alpha: adapter.spec.alpha, targets: [...adapter.spec.targets] }, tensors };
}

/** The LoraAdapter a stored row holds; PeftError('bad-config') when its config is not {rank, alpha, targets}. */
export function adapterFromRow(row: Pick<AdapterRow, 'id' | 'config' | 'tensors'>): LoraAdapter {
  const { rank, alpha, targets } = row.config;
  const where = `adapter ${row.id}`;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 1)
    throw new PeftError('bad-config', where, `${where}: config.rank must be a positive integer`);
  if (typeof alpha !== 'number' || !(alpha > 0)) throw new PeftError('bad-config', where, `${where}: config.alpha must be a positive number`);
  if (!Array.isArray(targets) || !targets.every((t): t is LoraTarget => typeof t === 'string' && (ALL_LORA_TARGETS as readonly string[]).includes(t))) {
    throw new PeftError('bad-config', where, `${where}: config.targets must list projections among ${ALL_LORA_TARGETS.join(', ')}`);
  }
  const weights: Record<string, Float32Array> = {};
  for (const [name, t] of Object.entries(row.tensors)) weights[name.startsWith(PEFT_PREFIX) ? name.slice(PEFT_PREFIX.length) : name] = t.data;
  return { spec: { rank, alpha, targets }, weights };
}

/** PEFT folder files (adapter_model.safetensors, adapter_config.json) of a stored adapter. */
export function exportAdapterRow(
  cfg: ModelConfig,
  row: Pick<AdapterRow, 'id' | 'config' | 'tensors' | 'baseModel'>,
  baseRef = row.baseModel,
): Record<string, Uint8Array> {
  return exportPeftAdapter(cfg, adapterFromRow(row), { baseModel: baseRef, metadata: { turnwise_adapter_id: row.id } });
}

/** A PEFT folder as the store's row fields (config + tensors), ready for putAdapter. */
export function importAdapterRow(cfg: ModelConfig, files: PeftFiles): { config: JsonObject; tensors: Record<string, AdapterTensor> } {
  return adapterRowFields(importPeftAdapter(cfg, files));
}
