// Algorithm name → module: the one place that maps `--algo` and the Train view's choice to an
// orchestration module (sweet.ts, starpo.ts, mtdpo.ts, rft.ts).
import type { AlgoSettings } from './algoSettings.ts';
import type { AlgoContext } from './context.ts';
import type { Algorithm } from './algorithm.ts';
import { Mtdpo } from './mtdpo.ts';
import { Rft } from './rft.ts';
import { Starpo } from './starpo.ts';
import { Sweet } from './sweet.ts';

/** Builds the algorithm (and its learners) for the settings. */
export async function createAlgorithm(ctx: AlgoContext, s: AlgoSettings): Promise<Algorithm> {
  switch (s.algo) {
    case 'sweet':
      return Sweet.create(ctx, s.sweet);
    case 'starpo':
    case 'grpo':
    case 'ppo':
      return Starpo.create(ctx, s.algo, s.starpo);
    case 'mtdpo':
      return Mtdpo.create(ctx, s.mtdpo);
    case 'rft':
      return Rft.create(ctx, s.rft);
  }
}

/** Whether the algorithm needs the critic model loaded. */
export function needsCritic(s: AlgoSettings): boolean {
  return s.algo === 'sweet' || ((s.algo === 'starpo' || s.algo === 'ppo' || s.algo === 'grpo') && s.starpo.advantage === 'gae');
}
