// Live credit of the episode being played (docs/design.md "Credit is live: recomputed incrementally as
// each turn lands"): each landed turn is scored once — the critic's values V(s_t), V(s_{t+1}) and
// log π_critic / log π_ref of that turn's tokens (criticInputs.ts latestTurnInput), never the
// prefix again — and pushed into one incremental estimator (src/rl/credit, the estimators' one
// definition) per shown estimator and parameter setting. A moved slider refolds the stored
// per-turn inputs into a fresh estimator: O(T) arithmetic, no model call. Without a critic (or
// while it lags behind), reward-only estimators read the turns' rewards. The scored inputs are
// kept as the episode's critic scores (scores(): values, per-token values, critic and reference
// log-probs, token ids and text), which the store keeps so that the credit can be recomputed later
// without the critic (rollout/stored.ts). No DOM: the Play view's state
// (ui/state/liveCredit.svelte.ts) and the credit bench drive it.
import { estimatorSpec, createIncremental, resolveParams, type EstimatorName } from '../credit/registry.ts';
import type { CreditParams, CreditResult, IncrementalCredit, TurnCreditInput } from '../credit/types.ts';
import type { CriticScoresRecord } from '../store/schema.ts';
import { latestTurnInput, type CriticEpisode, type CriticInputOptions, type CriticTurn, type ScoreApi } from './criticInputs.ts';

/** An episode's critic scores as the store takes them (TrajectoryStore.putCriticScores). */
export type CriticScores = Omit<CriticScoresRecord, 'at'>;

/** What scoring one turn left beside its credit input. */
interface ScoredTokens {
  tokens: number[];
  text: string[];
  version: string;
}

/** Which per-turn inputs an estimator was fed: the critic's scores, or the environment's rewards alone. */
export type LiveSource = 'critic' | 'env';

interface Entry {
  inc: IncrementalCredit;
  /** The resolved parameters it was built with, as JSON. */
  params: string;
}

export class LiveEpisodeCredit {
  private task: CriticEpisode['task'] | null = null;
  /** The critic's inputs of turns 0 … scored−1, each scored once when it landed. */
  private readonly scoredTurns: TurnCreditInput[] = [];
  /** The token ids, their text and the critic version of each scored turn. */
  private readonly scoredTokens: ScoredTokens[] = [];
  /** V(s_0), from scoring the first turn. */
  private initialValue = 0;
  private readonly entries = new Map<string, Entry>();
  private chain: Promise<void> = Promise.resolve();
  /** Bumped on every reset, so a scoring call of an older episode drops its result. */
  private epoch = 0;

  /** Turns whose critic inputs are known. */
  get scored(): number {
    return this.scoredTurns.length;
  }

  /** The critic that scored the latest turn: "critic" (its base only) or "critic@<adapter>"; null before any. */
  get criticVersion(): string | null {
    return this.scoredTokens.at(-1)?.version ?? null;
  }

  /** One estimator per source and name (a moved slider replaces it, so memory stays bounded). */
  private entry(source: LiveSource, name: EstimatorName, params: CreditParams, turns: number): Entry {
    const key = `${source} ${name}`;
    const json = JSON.stringify(params);
    let entry = this.entries.get(key);
    if (!entry || entry.params !== json || entry.inc.turns > turns) {
      entry = { inc: createIncremental(name, params, source === 'critic' ? { initialValue: this.initialValue } : {}), params: json };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** Forgets the episode (a new one starts, or the turns were replaced). */
  reset(): void {
    this.task = null;
    this.scoredTurns.length = 0;
    this.scoredTokens.length = 0;
    this.initialValue = 0;
    this.entries.clear();
    this.epoch++;
  }

  /**
   * Scores the turns that landed since the last call (normally only the newest), one turn per
   * latestTurnInput call. Calls are queued, so a turn is never scored twice; a different task or
   * fewer turns than already scored starts over.
   */
  score(engine: ScoreApi, episode: CriticEpisode, opts: CriticInputOptions = {}): Promise<void> {
    const { task, turns, tokens } = episode;
    if (task !== this.task || turns.length < this.scoredTurns.length) {
      this.reset();
      this.task = task;
    }
    const epoch = this.epoch;
    const next = this.chain.then(async () => {
      for (let t = this.scoredTurns.length; t < turns.length && epoch === this.epoch; t++) {
        const {
          turn,
          initialValue,
          tokens: ids,
          version,
        } = await latestTurnInput(engine, { task, turns: turns.slice(0, t + 1), ...(tokens ? { tokens } : {}) }, opts);
        const critic = opts.critic ?? 'critic';
        const text = engine.decode ? await Promise.all(ids.map((id) => engine.decode!([id], critic))) : ids.map(() => '');
        if (epoch !== this.epoch) return;
        if (t === 0) this.initialValue = initialValue ?? 0;
        this.scoredTurns.push(turn);
        this.scoredTokens.push({ tokens: ids, text, version });
      }
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /**
   * Credit of the turns so far by `name` with `params`, from the critic's inputs when every turn
   * has them, else from the rewards (null when the estimator needs more than rewards). New turns
   * since the last call are pushed; nothing already pushed is recomputed.
   */
  credit(name: EstimatorName, params: CreditParams, turns: readonly CriticTurn[]): { result: CreditResult; source: LiveSource } | null {
    const spec = estimatorSpec(name);
    if (turns.length === 0 || spec.scope === 'group') return null;
    const source: LiveSource = this.scoredTurns.length >= turns.length ? 'critic' : 'env';
    if (source === 'env' && spec.needs.some((n) => n !== 'rewards')) return null;
    const entry = this.entry(source, name, resolveParams(name, params), turns.length);
    for (let t = entry.inc.turns; t < turns.length; t++)
      entry.inc.push(source === 'critic' ? this.scoredTurns[t] : { reward: Math.fround(turns[t].reward), done: turns[t].done });
    return { result: entry.inc.result(), source };
  }

  /**
   * The critic's scores of the first `turns` turns in the layout the store keeps
   * (store/schema.ts CriticScoresRecord): exactly the numbers the estimators were fed, so credit
   * recomputed from them equals this live credit. Null until those turns are all scored.
   */
  scores(turns: number): CriticScores | null {
    if (turns === 0 || this.scoredTurns.length < turns) return null;
    const scored = this.scoredTurns.slice(0, turns);
    const tokens = this.scoredTokens.slice(0, turns);
    const tokenOffsets = [0];
    for (const s of scored) tokenOffsets.push(tokenOffsets[tokenOffsets.length - 1] + (s.criticLogprobs?.length ?? 0));
    const flat = (pick: (s: TurnCreditInput) => Float32Array | undefined) => scored.flatMap((s) => Array.from(pick(s) ?? []));
    const versions = [...new Set(tokens.map((s) => s.version))];
    return {
      version: versions.join('+'),
      // V(s_{t+1}) is the value turn t was scored with; 0 after the last turn once it ended
      values: [this.initialValue, ...scored.map((s) => (s.done ? 0 : (s.nextValue ?? 0)))],
      tokenOffsets,
      tokens: tokens.flatMap((s) => s.tokens),
      tokenText: tokens.flatMap((s) => s.text),
      tokenValues: scored.every((s) => s.tokenValues) ? flat((s) => s.tokenValues) : null,
      criticLogprobs: flat((s) => s.criticLogprobs),
      refLogprobs: flat((s) => s.refLogprobs),
    };
  }
}
