// The forge's critic phase alone (critic.ts), from a policy already forged: reads the policy folder
// (its tokenizer, architecture and weights, e.g. public/models), runs criticPhase on it and writes the
// policy folder's files unchanged (byte for byte), the new critic folder (with its SWEET-RL adapter in
// adapter/) and manifest.json. `npx turnwise forge --critic-only --from DIR --out DIR`.
import { writeManifest, writeModelFolder, type LoadedModel } from '../model/folder/folder.ts';
import { buildGraph } from '../model/llama/graphs.ts';
import { blocksQuant4, paramSource } from '../model/llama/params.ts';
import type { ManifestModel } from '../model/manifest.ts';
import type { ModelWeights } from '../model/llama/weights.ts';
import type { ForgeRun } from './forge.ts';
import { criticPhase, type CriticReport } from './critic.ts';
import { ForgeConfigError, validateForgeConfig, type ForgeConfig } from './config.ts';
import type { PhaseReport } from './train.ts';

/** What a critic-only forge produced. */
export interface CriticOnlyResult {
  phases: PhaseReport[];
  critic: CriticReport | null;
  manifest: Record<string, ManifestModel>;
  seconds: number;
}

/** Forges the critic for `policy` (a loaded policy folder) and writes both folders and the manifest. */
export async function forgeCriticOnly(input: ForgeConfig, policy: LoadedModel, run: Omit<ForgeRun, 'start'>): Promise<CriticOnlyResult> {
  const t0 = performance.now();
  const meta = policy.turnwise ?? {};
  // the policy's own window and reply budget (it may have been forged with other settings than `input`);
  // no policy stage runs here, so the preset's stages are dropped rather than checked against a --mix
  const { firstStage: _first, ...rest } = input;
  const cfg = validateForgeConfig({
    ...rest,
    refine: [],
    dagger: null,
    afterDagger: [],
    finalDagger: null,
    finish: [],
    seqLen: policy.config.maxSeq,
    ...(typeof meta.maxReplyTokens === 'number' ? { maxReplyTokens: meta.maxReplyTokens } : {}),
  });
  run.log(`[forge] critic only, from a policy of d ${policy.config.dModel} × ${policy.config.nLayers} layers, context ${cfg.seqLen}`);
  if (!cfg.sweetCritic) throw new ForgeConfigError('sweetCritic', 'forge: --critic-only needs the SWEET-RL critic phase (sweetCritic)');
  const c = await criticPhase(cfg, run, { tokenizer: policy.tokenizer, config: policy.config, weights: policy.weights });
  const weights: ModelWeights = { ...c.backbone, ...c.head };
  const params = paramSource(weights, blocksQuant4);
  const graphs = {
    'onnx/prefill_q4.onnx': buildGraph(policy.config, { kind: 'prefill', params, heads: { value: true } }).bytes,
    'onnx/decode_q4.onnx': buildGraph(policy.config, { kind: 'decode', params, heads: { value: true } }).bytes,
  };
  const { heldOut: _heldOut, role: _role, ...common } = meta;
  const manifest = {
    // files as read override the regenerated ones: the policy folder is written back unchanged
    policy: await writeModelFolder(run.write, 'policy', policy),
    critic: await writeModelFolder(run.write, 'critic', {
      config: policy.config,
      tokenizer: policy.tokenizer,
      weights,
      heads: { value: true },
      turnwise: { ...common, role: 'critic', hiddenMessage: 'one hidden message after the prompt: hiddenText(task.hidden)' },
      files: { ...graphs, ...c.files },
    }),
  };
  await writeManifest(run.write, manifest, { seed: cfg.seed, command: run.command, date: new Date().toISOString() });
  return { phases: c.phases, critic: c.report, manifest, seconds: (performance.now() - t0) / 1000 };
}
