// Live credit without a critic (rollout/liveCredit.ts): reward-only estimators follow the turns as
// they land (hand-computed MC returns), critic-based ones wait for the critic, a moved slider gives
// the new parameters' credit, and a shorter turn list (a new episode) starts over. With the critic,
// see policyRollout.test.ts (each landed turn scored once; equals batch credit on every prefix).
import { describe, expect, it } from 'vitest';
import { LiveEpisodeCredit } from '../../../src/rl/rollout/liveCredit.ts';
import type { CriticTurn } from '../../../src/rl/rollout/criticInputs.ts';
import { expectClose } from '../credit/helpers.ts';

const turn = (reward: number, done = false): CriticTurn => ({ action: 'a', observation: 'o', reward, done });

describe('live credit from rewards alone', () => {
  it('follows the turns as they land', () => {
    const live = new LiveEpisodeCredit();
    const turns = [turn(1), turn(0), turn(2, true)];
    expect(live.credit('mc', {}, [])).toBeNull();
    // γ = 0.5: after 1 turn [1]; after 2 [1, 0]; after 3: G_2 = 2, G_1 = 1, G_0 = 1.5
    expectClose(live.credit('mc', { gamma: 0.5 }, turns.slice(0, 1))!.result.perTurn, [1]);
    expectClose(live.credit('mc', { gamma: 0.5 }, turns.slice(0, 2))!.result.perTurn, [1, 0]);
    const r = live.credit('mc', { gamma: 0.5 }, turns)!;
    expect(r.source).toBe('env');
    expectClose(r.result.perTurn, [1.5, 1, 2]);
    // a moved slider: γ = 1 sums the remaining rewards
    expectClose(live.credit('mc', { gamma: 1 }, turns)!.result.perTurn, [3, 2, 2]);
    expect(live.credit('gae', {}, turns)).toBeNull();
    expect(live.credit('grpo', {}, turns)).toBeNull();
    // a new, shorter episode starts over
    expectClose(live.credit('mc', { gamma: 1 }, [turn(-1)])!.result.perTurn, [-1]);
  });
});
