// Agents that act for many episodes at once, behind one interface, so the rollout loop batches a
// step of every live episode into a single engine call (docs/design.md "Architecture": rollout/, batching K×T).
//  - PolicyBatchAgent: the engine's policy, the one way the lab plays it (Play, training, evaluation,
//    the forge's check). The dialogues become the model's chat as the forge trained it
//    (model/tokenizer/dialogue.ts toChat, the sliding window) and turn t of an episode with seed s
//    samples with seed hash(`${s}/${t}`), one seed per prompt (GenerateRequest.seeds), so a batched
//    rollout gives each episode the text it would get alone (tested against a one-prompt oracle).
//    Each episode's slot is its cache key (GenerateRequest.cacheKeys): the engine keeps the episode's
//    context after a turn and the next turn prefills only the new tokens (the window permitting);
//    slots that end are forgotten with the next call.
//  - scriptedBatchAgent: any per-episode Agent of the envs' interface (expert, noisy, random) acting
//    one episode after another, so scripted agents play through the same loop; familyAgent builds the
//    registry's scripted kinds that way.
import { agentName, DEFAULT_NOISE } from '../envs/agent.ts';
import type { Agent, AgentKind, Message } from '../envs/types.ts';
import { createAgent, type FamilyName } from '../envs/registry.ts';
import { toChat } from '../model/tokenizer/dialogue.ts';
import type { GenerateApi } from '../runtime/engine/types.ts';
import type { SamplingParams } from '../runtime/engine/sampling.ts';
import type { Generation } from '../runtime/engine/types.ts';
import { hashString } from '../util/rng.ts';
import { SCRIPTED, type AgentSide } from '../envs/turn.ts';
import { replyTokens } from '../model/meta.ts';

/** One episode's request for its next agent message. */
export interface BatchActRequest {
  /** The episode's slot in the batch (stable for the episode's life). */
  slot: number;
  /** The visible dialogue so far (starts with the task prompt; the last message is 'user'). */
  dialogue: readonly Message[];
  /** The episode's agent seed: turn t samples with hash(`${seed}/${t}`). */
  seed: number;
}

/** What the agent produced for one request. */
export interface BatchActResult {
  text: string;
  /** Tokens, log-probs, counts, latency and backend (scripted agents: backend "scripted"). */
  agent: AgentSide;
}

/** Acts for a batch of episodes; results are in request order. */
export interface BatchAgent {
  readonly name: string;
  act(requests: readonly BatchActRequest[]): Promise<BatchActResult[]>;
  /** Forgets per-episode state of slots that ended (scripted agents keep one Agent per slot). */
  release?(slot: number): void;
}

/** The per-turn sampling seed: hash of the episode seed and the turn index (0-based). */
export function turnSeed(episodeSeed: number, turn: number): number {
  return hashString(`${episodeSeed}/${turn}`);
}

/** Options of PolicyBatchAgent. */
export interface PolicyBatchOptions {
  /** Loaded model name; default 'policy'. */
  model?: string;
  /** Temperature 1 by default (docs/design.md: measure the shipped policy sampled); maxNewTokens defaults to the model's turnwise.maxReplyTokens (else 64). */
  sampling?: Partial<Omit<SamplingParams, 'seed'>>;
  /** Adapter id, null = base, omitted = the engine's active adapter. */
  adapter?: string | null;
  /** Most prompts per engine call (bounds the KV cache's memory); larger batches are split. Default 64. */
  maxBatch?: number;
  /** Display name; default "<model>(T=…)" or "<model>(greedy)", e.g. "policy(T=1)". */
  name?: string;
  /** Reuse each episode's KV cache across its turns (default true); false prefills every prompt whole. */
  reuseKv?: boolean;
}

/** Distinguishes the cache keys of agents sharing one engine. */
let agentCount = 0;

/** The engine's policy acting for a batch of episodes with one generate call per step. */
export class PolicyBatchAgent implements BatchAgent {
  readonly name: string;
  /** Engine calls made so far (one per step and chunk of maxBatch prompts). */
  calls = 0;
  /** Cache-key prefix of this agent's episodes. */
  private readonly tag = `agent${++agentCount}-${Math.random().toString(36).slice(2, 8)}`;
  /** Keys of ended episodes, dropped with the next call. */
  private forget: string[] = [];

  private constructor(
    private readonly engine: GenerateApi,
    private readonly opts: PolicyBatchOptions,
    private readonly sampling: Partial<SamplingParams>,
  ) {
    const t = sampling.temperature ?? 1;
    const model = opts.model ?? 'policy';
    this.name = opts.name ?? (t > 0 ? `${model}(T=${t})` : `${model}(greedy)`);
  }

  /** Reads the model's reply budget from the engine. */
  static async create(engine: GenerateApi, opts: PolicyBatchOptions = {}): Promise<PolicyBatchAgent> {
    const model = opts.model ?? 'policy';
    const info = (await engine.models()).find((m) => m.name === model);
    const sampling: Partial<SamplingParams> = { temperature: 1, maxNewTokens: replyTokens(info?.turnwise), ...opts.sampling };
    return new PolicyBatchAgent(engine, opts, sampling);
  }

  async act(requests: readonly BatchActRequest[]): Promise<BatchActResult[]> {
    const max = this.opts.maxBatch ?? 64;
    const out: BatchActResult[] = [];
    for (let at = 0; at < requests.length; at += max) out.push(...(await this.actChunk(requests.slice(at, at + max))));
    return out;
  }

  private async actChunk(requests: readonly BatchActRequest[]): Promise<BatchActResult[]> {
    const start = performance.now();
    const r = await this.engine.generate({
      model: this.opts.model ?? 'policy',
      prompts: requests.map((q) => ({ messages: toChat(q.dialogue), window: {} })),
      seeds: requests.map((q) => turnSeed(q.seed, q.dialogue.filter((m) => m.role === 'assistant').length)),
      sampling: { ...this.sampling },
      ...(this.opts.adapter !== undefined ? { adapter: this.opts.adapter } : {}),
      ...(this.opts.reuseKv !== false ? { cacheKeys: requests.map((q) => `${this.tag}/${q.slot}`) } : {}),
      ...(this.forget.length ? { forget: this.forget.splice(0) } : {}),
    });
    this.calls++;
    // The batch's wall time is every member's latency: they waited for the same call.
    const latencyMs = performance.now() - start;
    return requests.map((_, i) => generationResult(r.generations[i], latencyMs, r.backend));
  }

  release(slot: number): void {
    if (this.opts.reuseKv !== false) this.forget.push(`${this.tag}/${slot}`);
  }
}

function generationResult(g: Generation, latencyMs: number, backend: string): BatchActResult {
  return {
    text: g.text,
    agent: { tokens: g.tokenIds, logprobs: g.logprobs, promptTokens: g.promptTokens, completionTokens: g.completionTokens, latencyMs, backend },
  };
}

/**
 * A batch agent over per-episode agents: `make(seed)` builds the agent of a new slot (seeded with
 * the episode's agent seed); each acts in turn. Extras say backend "scripted" and the act's latency.
 */
export function scriptedBatchAgent(name: string, make: (seed: number) => Agent): BatchAgent {
  const agents = new Map<number, Agent>();
  return {
    name,
    async act(requests) {
      const out: BatchActResult[] = [];
      for (const q of requests) {
        let agent = agents.get(q.slot);
        if (!agent) agents.set(q.slot, (agent = make(q.seed)));
        const start = performance.now();
        const text = await agent.act(q.dialogue);
        out.push({ text, agent: { ...SCRIPTED, latencyMs: performance.now() - start } });
      }
      return out;
    },
    release(slot) {
      agents.delete(slot);
    },
  };
}

/** The registry's scripted agent of `kind` for `family` (envs/registry.ts createAgent), one per episode, seeded with the episode's agent seed. */
export function familyAgent(kind: AgentKind, family: FamilyName, noise = DEFAULT_NOISE): BatchAgent {
  return scriptedBatchAgent(agentName(kind, noise), (seed) => createAgent(kind, family, { seed, noise }));
}
