// The person's lab-wide preferences: base seed and sampling defaults for the policy. Kept in
// localStorage and validated where they enter (the engine's resolveSampling names a bad field).
import { resolveSampling, type SamplingParams } from '../../rl/runtime/api.ts';

const KEY = 'turnwise.preferences';

/** What the Settings view edits. */
export interface PreferencesData {
  /** Base seed for new episodes; 'random' draws one per episode. */
  seed: number | 'random';
  /** Temperature, top-p, top-k and reply length for the policy (docs/design.md: measure at temperature 1). */
  sampling: Pick<SamplingParams, 'temperature' | 'topP' | 'topK' | 'maxNewTokens'>;
}

export const DEFAULT_PREFERENCES: PreferencesData = { seed: 'random', sampling: { temperature: 1, topP: 1, topK: 0, maxNewTokens: 48 } };

function load(): PreferencesData {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) ?? 'null') as Partial<PreferencesData> | null;
    if (!raw) return structuredClone(DEFAULT_PREFERENCES);
    const s = resolveSampling({ ...DEFAULT_PREFERENCES.sampling, ...raw.sampling });
    const seed = raw.seed === 'random' || Number.isSafeInteger(raw.seed) ? (raw.seed as PreferencesData['seed']) : 'random';
    return { seed, sampling: { temperature: s.temperature, topP: s.topP, topK: s.topK, maxNewTokens: s.maxNewTokens } };
  } catch {
    return structuredClone(DEFAULT_PREFERENCES); // a corrupt entry falls back to the defaults
  }
}

export class Preferences {
  data = $state<PreferencesData>(load());
  /** The last rejected edit, e.g. "sampling: topP must be in (0, 1], got 2". */
  error = $state<string | null>(null);

  /** Applies a change if it validates, and saves it. */
  update(change: Partial<PreferencesData['sampling']> & { seed?: PreferencesData['seed'] }): void {
    const { seed, ...sampling } = change;
    try {
      const s = resolveSampling({ ...this.data.sampling, ...sampling });
      if (seed !== undefined && seed !== 'random' && !Number.isSafeInteger(seed)) throw new Error(`seed must be an integer or "random", got ${seed}`);
      this.data = { seed: seed ?? this.data.seed, sampling: { temperature: s.temperature, topP: s.topP, topK: s.topK, maxNewTokens: s.maxNewTokens } };
      this.error = null;
      localStorage.setItem(KEY, JSON.stringify(this.data));
    } catch (e) {
      this.error = (e as Error).message;
    }
  }

  /** The seed for a new episode. */
  nextSeed(): number {
    return this.data.seed === 'random' ? Math.floor(Math.random() * 1_000_000) : this.data.seed;
  }
}
