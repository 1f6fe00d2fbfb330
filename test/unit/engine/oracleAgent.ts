// Test oracle: the learned policy behind the task suite's one-episode Agent interface, one prompt per
// engine call. The lab plays the policy through rollout/agents.ts PolicyBatchAgent (every live
// episode's step in one call); the tests compare that batched path with this plain one, which builds
// the chat the same way (model/tokenizer/dialogue.ts toChat) and samples turn t of an episode with
// seed hash(`${seed}/${t}`), so both must give the same text for the same seeds.
import type { Agent, Message } from '../../../src/rl/envs/types.ts';
import { toChat } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { hashString } from '../../../src/rl/util/rng.ts';
import type { SamplingParams } from '../../../src/rl/runtime/engine/sampling.ts';
import type { GenerateApi, GenerateResult, Generation } from '../../../src/rl/runtime/engine/types.ts';
import { replyTokens } from '../../../src/rl/model/meta.ts';

export interface PolicyAgentOptions {
  /** Loaded model name; default 'policy'. */
  model?: string;
  /** Episode seed: turn t samples with seed hash(seed, t). Default 0. */
  seed?: number;
  /** Temperature 1 by default (docs/design.md: measure the shipped policy sampled); maxNewTokens defaults to the model's turnwise.maxReplyTokens. */
  sampling?: Partial<Omit<SamplingParams, 'seed'>>;
  /** Adapter id, null = base, omitted = the engine's active adapter. */
  adapter?: string | null;
  /** Display name; default "policy(T=…)" or "policy(greedy)". */
  name?: string;
  /** Called after every turn with what the trajectory store records. */
  onTurn?: (turn: PolicyTurn) => void;
}

/** What one act() produced, beyond the text. */
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
