// Replays compare turns without their wall-clock latency, the one field a replay may not reproduce.
import type { EpisodeTurn } from '../../../src/rl/envs/types.ts';

/** The turns with latencyMs set to 0. */
export const timeless = (ts: readonly EpisodeTurn[]): EpisodeTurn[] => ts.map((t) => ({ ...t, latencyMs: 0 }));
