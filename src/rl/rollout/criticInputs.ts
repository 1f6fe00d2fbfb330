// What the critic and the reference policy say about an episode so far, as the credit estimators'
// inputs (src/rl/credit/types.ts EpisodeCreditInput and, one turn at a time, TurnCreditInput):
//  - V(s_t): the critic's value head at the last token of its window before turn t — exactly where
//    the forge trained it (forge/forge.ts valueSamples: the critic chat with the hidden message,
//    windowIds with reserve 0, target = return from t on);
//  - log π_critic(a_t | o_t, c): the critic's LM head (its active adapter, or `criticAdapter`) on the
//    agent's tokens with the task's hidden information c in its prompt (SWEET-RL's asymmetric
//    critic, arXiv 2503.15478 §4);
//  - log π_ref(a_t | o_t, c): the critic's reference, its base model (adapter off) on the very same
//    items, as the SWEET-RL trainer scores it (algos/sweet.ts; credit/sweetAdvantage.ts defines the
//    advantage once). A critic with no adapter is its own reference, so its SWEET credit is 0;
//  - per-token values of the agent's tokens (RAGEN bi-level GAE): the value head after each token.
// Agent tokens are the turn's recorded token ids when it has them (a policy turn: its sampled ids,
// <|end|> included), else the text encoded literally. ArCHer's Q(s, a) needs a Q head the shipped
// critic does not have, so `q` is never filled here.
import type { EpisodeCreditInput, TurnCreditInput } from '../credit/types.ts';
import { dialogueOf } from '../envs/episode.ts';
import type { EpisodeTurn, Task } from '../envs/types.ts';
import { toChat } from '../model/tokenizer/dialogue.ts';
import type { ModelInfo, Prompt, ScoreItem, ScoreRequest, ScoreResult } from '../runtime/engine/types.ts';
import { RolloutError } from './rollout.ts';
import { contextTokens } from '../model/meta.ts';

/** What the critic inputs need from an engine; PolicyEngine and Remote<PolicyEngine> satisfy it. */
export interface ScoreApi {
  score(request: ScoreRequest): Promise<ScoreResult>;
  encode(prompt: Prompt, model?: string): Promise<number[]>;
  models(): ModelInfo[] | Promise<ModelInfo[]>;
  /** Text of token ids; when given, live credit keeps each scored token's text for drawing per-token credit. */
  decode?(ids: number[], model?: string): Promise<string>;
}

/** Which model and adapter play the critic; the reference is always that model's base. */
export interface CriticInputOptions {
  /** Loaded critic (value head + LM head); default 'critic'. */
  critic?: string;
  /** The critic's adapter for values and log π_critic: omitted = its active adapter, null = its base. */
  criticAdapter?: string | null;
}

/** The parts of a turn the critic reads. */
export type CriticTurn = Pick<EpisodeTurn, 'action' | 'observation' | 'reward' | 'done'>;

/** An episode, or a prefix of one still running (stored or imported episodes fit too). */
export interface CriticEpisode {
  task: Pick<Task, 'prompt' | 'hidden'>;
  turns: readonly CriticTurn[];
  /** Per turn, the agent's token ids when known (e.g. RolloutEpisode.turns[t].tokens). */
  tokens?: readonly (ArrayLike<number> | null | undefined)[];
}

/** The critic's token budget (its forged context, else its maxSeq). */
async function criticBudget(engine: ScoreApi, critic: string): Promise<number> {
  const info = (await engine.models()).find((m) => m.name === critic);
  if (!info) throw new RolloutError('bad-config', `model "${critic}" is not loaded: load the critic (public/models/critic)`);
  return contextTokens(info.turnwise, info.config.maxSeq);
}

/** Scores turns [from, T) and the values V(s_from) … V(s_T) of each episode, in one call per model. */
async function scoreRange(engine: ScoreApi, episodes: readonly CriticEpisode[], from: (e: CriticEpisode) => number, opts: CriticInputOptions) {
  const critic = opts.critic ?? 'critic';
  const budget = await criticBudget(engine, critic);
  const adapter = opts.criticAdapter === undefined ? {} : { adapter: opts.criticAdapter };
  const valueItems: ScoreItem[] = [];
  const criticItems: ScoreItem[] = [];
  const plan: { first: number; turns: number; valueAt: number; turnAt: number }[] = [];
  for (const e of episodes) {
    const first = from(e);
    const T = e.turns.length;
    plan.push({ first, turns: T - first, valueAt: valueItems.length, turnAt: criticItems.length });
    for (let t = first; t <= T; t++) {
      const dialogue = dialogueOf(e.task.prompt, e.turns.slice(0, t));
      const criticChat = toChat(dialogue, e.task.hidden);
      valueItems.push({ context: { messages: criticChat, window: { budget, reserve: 0 } }, continuation: [] });
      if (t === T) break;
      const given = e.tokens?.[t];
      const ids = given ? Array.from(given) : (await engine.encode({ text: e.turns[t].action }, critic)).slice(1);
      criticItems.push({ context: { messages: criticChat, window: { budget, reserve: ids.length } }, continuation: ids });
    }
  }
  const [values, crit, ref] = await Promise.all([
    engine.score({ model: critic, ...adapter, items: valueItems }),
    criticItems.length ? engine.score({ model: critic, ...adapter, items: criticItems }) : Promise.resolve(null),
    // π_ref: the same items on the critic's base (SWEET-RL's reference sees c too)
    criticItems.length ? engine.score({ model: critic, adapter: null, items: criticItems }) : Promise.resolve(null),
  ]);
  return episodes.map((e, i) => {
    const p = plan[i];
    const v = values.items.slice(p.valueAt, p.valueAt + p.turns + 1).map((it) => {
      if (it.contextValue === undefined)
        throw new RolloutError('no-value-head', `model "${opts.critic ?? 'critic'}" has no value head: load the critic (public/models/critic)`);
      return it.contextValue;
    });
    const c = crit ? crit.items.slice(p.turnAt, p.turnAt + p.turns) : [];
    const r = ref ? ref.items.slice(p.turnAt, p.turnAt + p.turns) : [];
    return { values: v, critic: c, ref: r, version: values.adapter === null ? critic : `${critic}@${values.adapter}` };
  });
}

/** Episode-level credit inputs (rewards, values, token offsets, critic/reference log-probs, token values) for each episode. */
export async function criticInputs(engine: ScoreApi, episodes: readonly CriticEpisode[], opts: CriticInputOptions = {}): Promise<EpisodeCreditInput[]> {
  if (episodes.length === 0) return [];
  const scored = await scoreRange(engine, episodes, () => 0, opts);
  return episodes.map((e, i) => {
    const s = scored[i];
    const T = e.turns.length;
    const terminal = T > 0 && e.turns[T - 1].done;
    const values = Float32Array.from(s.values);
    if (terminal) values[T] = 0;
    const tokenOffsets = new Int32Array(T + 1);
    s.critic.forEach((it, t) => (tokenOffsets[t + 1] = tokenOffsets[t] + it.tokens.length));
    const flat = (items: typeof s.critic, pick: (it: (typeof s.critic)[number]) => ArrayLike<number>) => {
      const out = new Float32Array(tokenOffsets[T]);
      items.forEach((it, t) => out.set(pick(it), tokenOffsets[t]));
      return out;
    };
    return {
      rewards: Float32Array.from(e.turns, (t) => t.reward),
      values,
      terminal,
      tokenOffsets,
      criticLogprobs: flat(s.critic, (it) => it.logprobs),
      refLogprobs: flat(s.ref, (it) => it.logprobs),
      tokenValues: flat(s.critic, (it) => it.values ?? new Float32Array(it.tokens.length).fill(Number.NaN)),
    };
  });
}

/** The newest turn's credit inputs, the token ids they belong to, and which critic gave them. */
export interface LatestTurnInput {
  turn: TurnCreditInput;
  /** V(s_0), when the turn is the first. */
  initialValue?: number;
  /** [n_t] the token ids scored (the turn's own ids, or its text encoded). */
  tokens: number[];
  /** The critic and the adapter it scored with: "critic" or "critic@<adapter>". */
  version: string;
}

/**
 * Live credit: the TurnCreditInput of an episode's newest turn (for IncrementalCredit.push), with
 * V(s_0) for IncrementalStart when that turn is the first. Scores that turn only (three calls:
 * values V(s_{T−1}), V(s_T); log π_critic; log π_ref), whatever the length of the prefix.
 */
export async function latestTurnInput(engine: ScoreApi, episode: CriticEpisode, opts: CriticInputOptions = {}): Promise<LatestTurnInput> {
  const T = episode.turns.length;
  if (T === 0) throw new RolloutError('bad-config', 'latestTurnInput needs an episode with at least one turn');
  const [s] = await scoreRange(engine, [episode], () => T - 1, opts);
  const last = episode.turns[T - 1];
  const turn: TurnCreditInput = {
    // float32, as every credit input array holds it (EpisodeCreditInput.rewards), so that live
    // credit equals the credit recomputed from the stored episode bit for bit
    reward: Math.fround(last.reward),
    done: last.done,
    ...(last.done ? {} : { nextValue: Math.fround(s.values[1]) }),
    criticLogprobs: Float32Array.from(s.critic[0].logprobs),
    refLogprobs: Float32Array.from(s.ref[0].logprobs),
    ...(s.critic[0].values ? { tokenValues: Float32Array.from(s.critic[0].values) } : {}),
  };
  return { turn, tokens: s.critic[0].tokens.slice(), version: s.version, ...(T === 1 ? { initialValue: Math.fround(s.values[0]) } : {}) };
}

/**
 * The critic's and its reference's log-probs of each episode's last turn only, all episodes in one call
 * per model (the prefix is context, not scored again): what SWEET-RL's log-ratio of that turn reads
 * (centring samples K candidates at a state, each an episode ending in the candidate).
 */
export async function lastTurnLogprobs(
  engine: ScoreApi,
  episodes: readonly CriticEpisode[],
  opts: CriticInputOptions = {},
): Promise<{ criticLogprobs: Float32Array; refLogprobs: Float32Array }[]> {
  if (episodes.some((e) => e.turns.length === 0)) throw new RolloutError('bad-config', 'lastTurnLogprobs needs episodes with at least one turn');
  const scored = await scoreRange(engine, episodes, (e) => e.turns.length - 1, opts);
  return scored.map((s) => ({ criticLogprobs: Float32Array.from(s.critic[0].logprobs), refLogprobs: Float32Array.from(s.ref[0].logprobs) }));
}
