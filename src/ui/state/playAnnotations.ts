// What Play stores beside a finished episode's turns (issue #20): a person's thumbs as a
// `human-feedback` credit row, the credit Play showed (one row per estimator, version 'live', with its
// parameters) and, once, the critic's scores of every turn (values, per-token values, critic and
// reference log-probs) from which the Credit view and `turnwise credit` recompute the critic's
// estimators with other parameters and no critic loaded (rollout/stored.ts storedInput). Failures
// come back through `onError` as the sentence Play shows; nothing here throws.
import type { JsonObject } from '../../rl/envs/types.ts';
import type { CriticScores } from '../../rl/rollout/liveCredit.ts';
import type { TrajectoryStore } from '../../rl/store/index.ts';
import { perRecord } from '../../rl/store/turn.ts';

/** One estimator's live credit, per agent turn. */
export interface LiveCreditRow {
  name: string;
  values: ArrayLike<number>;
  params: JsonObject;
}

export class PlayAnnotations {
  /** Which episode's critic scores were last stored (episode id, turns + 1, critic version). */
  private savedScores = '';

  constructor(private readonly onError: (message: string) => void) {}

  /** Stores a person's thumbs (+1 / −1 per agent turn, NaN where unrated), replacing the row. */
  rate(store: TrajectoryStore, episodeId: string, thumbs: readonly number[]): void {
    store.putCredit(episodeId, { estimator: 'human-feedback', version: 'person', values: perRecord(thumbs) }).catch((e: Error) => {
      this.onError(`A rating could not be saved: ${e.message}`);
    });
  }

  /** Stores the live credit rows (each call replaces them) and the critic's scores once per episode and critic version. */
  saveLive(store: TrajectoryStore, episodeId: string, rows: readonly LiveCreditRow[], scores: CriticScores | null): void {
    const scoresKey = scores ? `${episodeId} ${scores.values.length} ${scores.version}` : '';
    if (scores && scoresKey !== this.savedScores) {
      this.savedScores = scoresKey;
      store.putCriticScores(episodeId, scores).catch((e: Error) => {
        this.savedScores = '';
        this.onError(`The critic's scores could not be saved: ${e.message}`);
      });
    }
    for (const r of rows) {
      store.putCredit(episodeId, { estimator: r.name, version: 'live', params: r.params, values: perRecord(r.values) }).catch((e: Error) => {
        this.onError(`The episode's credit could not be saved: ${e.message}`);
      });
    }
  }
}
