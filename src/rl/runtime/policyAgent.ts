// The learned policy behind the task suite's Agent interface (src/rl/envs/types.ts), so
// `turnwise eval --agent policy`, the rollout loop and the Play view use the engine like any
// scripted agent. The dialogue becomes the model's chat as the forge trained it (model/tokenizer/dialogue.ts
// toChat: the task prompt as 'system', 'user'/'assistant' as user/agent) inside the forge's sliding
// context window. Each turn samples with a seed derived from (episode seed, turn), so an episode
// replays exactly. The engine may be in-thread (PolicyEngine) or a comlink Remote<PolicyEngine>.
import type { Agent, Message } from '../envs/types.ts';
import { toChat } from '../model/tokenizer/dialogue.ts';
import { hashString } from '../util/rng.ts';
import type { SamplingParams } from './engine/sampling.ts';
import type { GenerateRequest, GenerateResult, Generation, ModelInfo } from './engine/types.ts';
import { replyTokens } from '../model/meta.ts';

/** What the agent needs from an engine; PolicyEngine and Remote<PolicyEngine> both satisfy it. */
export interface GenerateApi {
  generate(request: GenerateRequest): Promise<GenerateResult>;
  models(): ModelInfo[] | Promise<ModelInfo[]>;
}

export interface PolicyAgentOptions {
  /** Loaded model name; default 'policy'. */
  model?: string;
  /** Episode seed: turn t samples with seed hash(seed, t). Default 0. */
  seed?: number;
  /** Temperature 1 by default (DESIGN.md: measure the shipped policy sampled); maxNewTokens defaults to the model's turnwise.maxReplyTokens. */
  sampling?: Partial<Omit<SamplingParams, 'seed'>>;
  /** Adapter id, null = base, omitted = the engine's active adapter. */
  adapter?: string | null;
  /** Display name; default "policy(T=…)" or "policy(greedy)". */
  name?: string;
  /** Called after every turn with what the trajectory store records. */
  onTurn?: (turn: PolicyTurn) => void;
}

/** What one act() produced, beyond the text (AgentTurnExtras in src/rl/rollout/recorder.ts). */
export interface PolicyTurn {
  generation: Generation;
  latencyMs: number;
  backend: GenerateResult['backend'];
  adapter: string | null;
}

export class PolicyAgent implements Agent {
  readonly name: string;
  /** The latest turn's tokens, log-probs and counts. */
  lastTurn: PolicyTurn | null = null;

  private constructor(
    private readonly engine: GenerateApi,
    private readonly opts: PolicyAgentOptions,
    private readonly sampling: Partial<SamplingParams>,
  ) {
    const t = sampling.temperature ?? 1;
    this.name = opts.name ?? (t > 0 ? `policy(T=${t})` : 'policy(greedy)');
  }

  /** Reads the model's reply budget from the engine and returns an agent. */
  static async create(engine: GenerateApi, opts: PolicyAgentOptions = {}): Promise<PolicyAgent> {
    const model = opts.model ?? 'policy';
    const info = (await engine.models()).find((m) => m.name === model);
    const sampling: Partial<SamplingParams> = { temperature: 1, maxNewTokens: replyTokens(info?.turnwise), ...opts.sampling };
    return new PolicyAgent(engine, opts, sampling);
  }

  async act(dialogue: readonly Message[]): Promise<string> {
    const turn = dialogue.filter((m) => m.role === 'assistant').length;
    const seed = hashString(`${this.opts.seed ?? 0}/${turn}`);
    const start = performance.now();
    const r = await this.engine.generate({
      model: this.opts.model ?? 'policy',
      prompts: [{ messages: toChat(dialogue), window: {} }],
      sampling: { ...this.sampling, seed },
      ...(this.opts.adapter !== undefined ? { adapter: this.opts.adapter } : {}),
    });
    const generation = r.generations[0];
    this.lastTurn = { generation, latencyMs: performance.now() - start, backend: r.backend, adapter: r.adapter };
    this.opts.onTurn?.(this.lastTurn);
    return generation.text;
  }
}
