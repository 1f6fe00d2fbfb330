// The policy-fit check (model/fit.ts) on real tasks: each task's opening prompt is drawn from the
// environment and counted with the loaded policy's own tokenizer, the way the policy agent prompts it
// (agents.ts: the task prompt as the chat's system message, then the generation prompt). Play, the
// Train view and the CLI share it, so all three refuse the same tasks with the same words.
import { createEnv } from '../envs/registry.ts';
import type { TaskSpec } from '../envs/types.ts';
import { policyFit, policyLimits, PolicyFitError, type PolicyFit } from '../model/fit.ts';
import { toChat } from '../model/tokenizer/dialogue.ts';
import type { ModelInfo, Prompt } from '../runtime/engine/types.ts';

/** What the check needs from an engine (the in-thread PolicyEngine and its comlink handle both have it). */
export interface PromptCounter {
  encode(prompt: Prompt, model?: string): Promise<number[]>;
  models(): ModelInfo[] | Promise<ModelInfo[]>;
}

/** Options of the check. */
export interface PolicyFitOptions {
  /** The loaded model to check; default 'policy'. */
  model?: string;
  /** Reply tokens reserved per turn; default the model's turnwise.maxReplyTokens. */
  replyTokens?: number;
}

/**
 * The fit of the longest opening prompt among `specs` (the first task that does not fit decides;
 * else a family the policy was not forged on; else 'fits'). Throws when the model is not loaded.
 */
export async function policyFitOf(api: PromptCounter, specs: readonly TaskSpec[], opts: PolicyFitOptions = {}): Promise<PolicyFit> {
  const name = opts.model ?? 'policy';
  const info = (await api.models()).find((m) => m.name === name);
  if (!info) throw new Error(`the ${name} model is not loaded`);
  const limits = policyLimits(info.turnwise, info.config.maxSeq, opts.replyTokens);
  let worst: PolicyFit = { kind: 'fits' };
  const envs = new Map<string, ReturnType<typeof createEnv>>();
  for (const spec of specs) {
    const env = envs.get(spec.family) ?? createEnv(spec.family);
    envs.set(spec.family, env);
    const prompt = env.reset(spec).prompt;
    const promptTokens = (await api.encode({ messages: toChat([{ role: 'user', content: prompt }]) }, name)).length;
    const fit = policyFit(limits, { family: spec.family, promptTokens });
    if (fit.kind === 'too-long' && (worst.kind !== 'too-long' || fit.promptTokens > worst.promptTokens)) worst = fit;
    else if (fit.kind === 'not-forged' && worst.kind === 'fits') worst = fit;
  }
  return worst;
}

/** Throws PolicyFitError (code 'too-long', the check's reason as message) unless the policy can take every task. */
export async function assertPolicyTakes(api: PromptCounter, specs: readonly TaskSpec[], opts: PolicyFitOptions = {}): Promise<void> {
  const fit = await policyFitOf(api, specs, opts);
  if (fit.kind === 'too-long') throw new PolicyFitError('too-long', fit.reason.charAt(0).toUpperCase() + fit.reason.slice(1));
}
