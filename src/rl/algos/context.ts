// What every algorithm works with in one iteration: the engine (rollouts, scoring with or without
// an adapter, live adapters), the loaded base models the learners are built over, and the context
// windows the engine uses, so that training rows are exactly the sequences the policy generated
// (model/tokenizer/dialogue.ts windowIds with the engine's budget and reply reserve) and the critic scored
// (rollout/criticInputs.ts: the critic's chat with the task's hidden information).
import { dialogueOf } from '../envs/episode.ts';
import type { EpisodeTurn, Message, Task } from '../envs/types.ts';
import { toChat, windowIds } from '../model/tokenizer/dialogue.ts';
import type { LoadedModel } from '../model/folder/folder.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import type { ScoreApi } from '../rollout/criticInputs.ts';
import type { RolloutEpisode } from '../rollout/rollout.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import type { GenerateApi } from '../runtime/engine/types.ts';
import type { Adapter } from '../runtime/engine/types.ts';
import { Rng } from '../util/rng.ts';
import type { LoopConfig } from './config.ts';
import { appendTurn, replySpan, setSpan, turnRow, type Row } from './rows.ts';
import { AlgoError, type LearnerTarget } from './types.ts';

/** What training needs from an engine; PolicyEngine (in-thread or the worker's own) satisfies it. */
export interface TrainEngine extends GenerateApi, ScoreApi {
  setAdapter(id: string, adapter: Adapter, opts?: { model?: string; activate?: boolean }): Promise<void>;
}

/** Token budgets the engine applies (criticInputs.ts windows). */
export interface Windows {
  policyBudget: number;
  /** The rollout's maxNewTokens: the reply reserve of the policy's window. */
  policyReserve: number;
  criticBudget: number;
  /** Each model's window rule (model/meta.ts keepsAnswered). */
  policyKeepsAnswered: boolean;
  criticKeepsAnswered: boolean;
}

/** An agent turn located in a list of episodes. */
export interface TurnRef {
  episode: number;
  turn: number;
}

/** Where one agent turn's reply is predicted in a training row: positions [from, to) of rows[row]. */
export interface TurnSlice extends TurnRef {
  row: number;
  from: number;
  to: number;
}

/** Engine model names of the two roles. */
export const MODEL_NAMES: Record<LearnerTarget, string> = { policy: 'policy', critic: 'critic' };

/** Scoring the algorithms did (reference and old log-probs, values): tokens scored and seconds. */
export interface ScoreMeter {
  tokens: number;
  seconds: number;
}

/** `engine` with its score calls counted into `meter` (the iteration's score_tokens / score_seconds). */
function meteredScores(engine: TrainEngine, meter: ScoreMeter): TrainEngine {
  return {
    generate: (request) => engine.generate(request),
    models: () => engine.models(),
    encode: (prompt, model) => engine.encode(prompt, model),
    setAdapter: (id, adapter, opts) => engine.setAdapter(id, adapter, opts),
    score: async (request) => {
      const started = performance.now();
      const result = await engine.score(request);
      meter.seconds += (performance.now() - started) / 1000;
      for (const it of request.items)
        meter.tokens +=
          ('ids' in it.context && Array.isArray(it.context.ids) ? it.context.ids.length : 0) + (Array.isArray(it.continuation) ? it.continuation.length : 0);
      return result;
    },
  };
}

export class AlgoContext {
  readonly scoreMeter: ScoreMeter = { tokens: 0, seconds: 0 };
  /** The engine, with scoring metered. */
  readonly engine: TrainEngine;

  constructor(
    engine: TrainEngine,
    readonly runtime: OrtRuntime,
    readonly models: { policy: LoadedModel; critic: LoadedModel | null },
    readonly windows: Windows,
    readonly config: LoopConfig,
    /** Adapter ids in the engine: the ones being trained. */
    readonly adapterIds: Record<LearnerTarget, string>,
    /** Seeded per iteration by the loop. */
    public rng: Rng = new Rng(0),
  ) {
    this.engine = meteredScores(engine, this.scoreMeter);
  }

  get tok(): Tokenizer {
    return this.models.policy.tokenizer;
  }

  critic(): LoadedModel {
    if (!this.models.critic) throw new AlgoError('no-critic', 'this algorithm needs the critic model (public/models/critic)');
    return this.models.critic;
  }

  /** The policy's prompt ids before its next reply, as generate() builds them. */
  policyPrompt(dialogue: readonly Message[]): number[] {
    return windowIds(this.tok, toChat(dialogue), this.windows.policyBudget, this.windows.policyReserve, this.windows.policyKeepsAnswered);
  }

  /** The critic's prompt (with the hidden information) before a reply of `reserve` tokens. */
  criticPrompt(task: Task, dialogue: readonly Message[], reserve: number): number[] {
    return windowIds(this.critic().tokenizer, toChat(dialogue, task.hidden), this.windows.criticBudget, reserve, this.windows.criticKeepsAnswered);
  }

  /** A reply's token ids: the sampled ids when recorded, else the text encoded with <|end|>. */
  replyIds(turn: EpisodeTurn, tokens?: ArrayLike<number> | null): number[] {
    if (tokens && tokens.length > 0) return Array.from(tokens);
    return [...this.tok.encode(turn.action), this.tok.special.end];
  }

  /**
   * Training rows of the agent turns that `keep` accepts: each row is the policy's window before
   * one turn followed by its reply, extended by the episode's later turns for as long as each later
   * prompt starts with the row (rows.ts appendTurn), so an episode played inside one window is one
   * row. Every turn's span says where its reply is predicted; old_logp comes from the recording
   * where every turn of the row has one (a row with a turn lacking it gets no old_logp at all).
   */
  turnRows(episodes: readonly RolloutEpisode[], keep: (ref: TurnRef) => boolean = () => true): { rows: Row[]; spans: TurnSlice[] } {
    const rows: Row[] = [];
    const spans: TurnSlice[] = [];
    const unrecorded = new Set<Row>();
    const budget = this.windows.policyBudget;
    episodes.forEach((e, ei) => {
      let open: Row | null = null;
      e.turns.forEach((t, ti) => {
        if (ti < e.prefixTurns || !keep({ episode: ei, turn: ti })) return;
        const reply = this.replyIds(t, t.tokens);
        const prompt = this.policyPrompt(dialogueOf(e.task.prompt, e.turns.slice(0, ti)));
        let span = open ? appendTurn(open, prompt, reply, budget) : null;
        if (!open || !span) {
          open = turnRow(prompt, reply, budget);
          span = replySpan(open, reply.length);
          rows.push(open);
        }
        if (t.logprobs && t.logprobs.length === reply.length) setSpan(open, span, 'old_logp', t.logprobs);
        else unrecorded.add(open);
        spans.push({ row: rows.length - 1, episode: ei, turn: ti, ...span });
      });
    });
    for (const r of unrecorded) delete r.f.old_logp;
    return { rows, spans };
  }

  /**
   * log π(ids[j+1] | ids[≤j]) at every position j of each row, under a model and adapter
   * (null = the base model, the reference). One engine score call.
   */
  async positionLogprobs(target: LearnerTarget, adapter: string | null, rows: readonly Row[]): Promise<number[][]> {
    if (rows.length === 0) return [];
    const r = await this.engine.score({
      model: MODEL_NAMES[target],
      adapter,
      items: rows.map((row) => ({ context: { ids: row.ids.slice(0, 1) }, continuation: row.ids.slice(1) })),
    });
    return r.items.map((it, i) => {
      const out = new Array<number>(rows[i].ids.length).fill(0);
      it.logprobs.forEach((v, j) => (out[j] = v));
      return out;
    });
  }

  /** Sets `name` on every row from per-position log-probs under a model and adapter. */
  async fillLogprobs(target: LearnerTarget, adapter: string | null, rows: readonly Row[], name: 'ref_logp' | 'old_logp'): Promise<void> {
    const lps = await this.positionLogprobs(target, adapter, rows);
    rows.forEach((row, i) => (row.f[name] = lps[i]));
  }

  /** A seeded permutation function for minibatch order. */
  order(): (n: number) => number[] {
    return (n) => this.rng.shuffle(Array.from({ length: n }, (_, i) => i));
  }
}
