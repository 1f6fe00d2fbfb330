// The shipped (or any forge-written) policy as an envs Agent factory, for `turnwise eval --agent
// policy` and scripts: loads the model folder through its manifest (sha256-verified), builds the
// 4-bit inference graphs (blocksQuant4, what ships) on onnxruntime-node, and hands out one seeded
// SamplingAgent per task. The caller disposes the runner.
import { loadModel } from '../model/folder/folder.ts';
import { nodeReader } from '../model/folder/nodeIo.ts';
import { blocksQuant4, paramSource } from '../model/llama/params.ts';
import { LlamaRunner } from '../model/llama/runner.ts';
import type { Agent } from '../envs/types.ts';
import { OrtRuntime } from '../runtime/ort.ts';
import { SamplingAgent } from './sampler.ts';

/** Sampling settings of a loaded policy. */
export interface PolicyLoadOptions {
  /** Softmax temperature; 0 = greedy. */
  temperature: number;
  /** Mixed into every task's sampling seed. */
  seed: number;
  /** Model name in the manifest (default 'policy'). */
  name?: string;
  /** fp32 weights instead of the shipped 4-bit placement. */
  fp32?: boolean;
}

/** A loaded policy: `make(taskSeed)` gives that task's agent. */
export interface LoadedPolicy {
  make(taskSeed: number): Agent;
  dispose(): Promise<void>;
}

/** Loads `<modelsRoot>/manifest.json`'s policy and returns an agent factory. Node only. */
export async function loadPolicy(modelsRoot: string, opts: PolicyLoadOptions): Promise<LoadedPolicy> {
  const model = await loadModel(nodeReader(modelsRoot), opts.name ?? 'policy');
  const runtime = await OrtRuntime.create('node');
  const runner = await LlamaRunner.create(runtime, model.config, paramSource(model.weights, opts.fp32 ? 'const' : blocksQuant4), { label: 'policy', padId: model.tokenizer.special.pad });
  const tw = model.turnwise ?? {};
  const contextTokens = typeof tw.contextTokens === 'number' ? tw.contextTokens : model.config.maxSeq;
  const maxReplyTokens = typeof tw.maxReplyTokens === 'number' ? tw.maxReplyTokens : 48;
  return {
    make: (taskSeed) => new SamplingAgent(runner, model.tokenizer, { temperature: opts.temperature, seed: `${opts.seed}/${taskSeed}`, contextTokens, maxReplyTokens }),
    dispose: () => runner.dispose(),
  };
}
