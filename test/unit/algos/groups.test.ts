// The pure parts of the algorithms: StarPO-S's variance filter keeps exactly the stated share of
// groups (those of highest spread), trajectory pairs by hand, the row layout of turn and episode
// rows against hand-placed positions, Echo Trap and loss-spike rules, early answers in guess.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { keptCount, trajectoryPairs, varianceFilter } from '../../../src/rl/algos/groups.ts';
import { episodeRow, packRows, turnRow } from '../../../src/rl/algos/rows.ts';
import { echoTrapWarnings, isLossSpike } from '../../../src/rl/algos/metrics.ts';
import { groupSpreads, rolloutMetrics } from '../../../src/rl/rollout/metrics.ts';
import { isEarlyAnswer } from '../../../src/rl/envs/guess/metrics.ts';
import { collapseConfirmed, describeFall, successCollapse, validationDrop, validationGain } from '../../../src/rl/algos/guards.ts';
import { meanOf } from '../../../src/rl/util/stats.ts';
import { applyThumbs } from '../../../src/rl/algos/feedback.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import type { EpisodeTurn } from '../../../src/rl/envs/types.ts';
import { SCRIPTED } from '../../../src/rl/envs/turn.ts';
import type { RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';

describe('variance filter', () => {
  it('keeps the top 25% of 8 groups by spread: the two widest', () => {
    // groups of K = 2: spreads 0, 0.5, 0, 1, 0.25, 0, 0, 0.1
    const returns = [0, 0, 0, 1, 1, 1, 0, 2, 0, 0.5, 3, 3, 1, 1, 0, 0.2];
    const { std } = groupSpreads(returns, 2);
    expect(std).toEqual([0, 0.5, 0, 1, 0.25, 0, 0, 0.1]);
    expect(varianceFilter(std, 0.25, true)).toEqual([1, 3]);
    expect(varianceFilter(std, 1, true)).toEqual([1, 3, 4, 7]);
    expect(varianceFilter(std, 1, false)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps exactly round(f·G) groups, none narrower than a dropped one (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 10, noNaN: true }), { minLength: 1, maxLength: 64 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (spreads, f) => {
          const kept = varianceFilter(spreads, f, false);
          expect(kept.length).toBe(Math.min(spreads.length, Math.max(1, Math.round(f * spreads.length))));
          expect(kept.length).toBe(keptCount(spreads.length, f));
          const dropped = spreads.map((_, i) => i).filter((i) => !kept.includes(i));
          for (const k of kept) for (const d of dropped) expect(spreads[k]).toBeGreaterThanOrEqual(spreads[d]);
        },
      ),
    );
  });
});

describe('trajectory pairs', () => {
  it('pairs the i-th best with the i-th worst of each group, only where returns differ', () => {
    // group 0: returns 1, 0, 0.5, 0 → (0 vs 3), (2 vs 1); group 1: all equal → none
    expect(trajectoryPairs([1, 0, 0.5, 0, 2, 2, 2, 2], 4)).toEqual([
      [0, 3],
      [2, 1],
    ]);
    expect(trajectoryPairs([1, 0, 0.5, 0, 2, 2, 3, 2], 4, [1])).toEqual([[6, 7]]);
  });
});

describe('rows', () => {
  const tok = fitTokenizer(['Is it red? Yes.', 'GUESS: apple'], { minCount: 1 });
  const cfg = validateConfig({ vocabSize: tok.vocabSize, dModel: 32, nLayers: 1, nHeads: 2, dFf: 64, maxSeq: 64 });

  it('trains a turn row on its reply: position j predicts ids[j+1]', () => {
    const r = turnRow([1, 2, 3], [7, 8], 16);
    expect(r.ids).toEqual([1, 2, 3, 7, 8]);
    expect(r.f.loss_mask).toEqual([0, 0, 1, 1, 0]);
  });

  it('left-pads rows into B × T with targets and empty padding rows', () => {
    const r = turnRow([1, 2, 3], [7, 8], 16);
    const feeds = packRows(cfg, [r], 2, 6, ['loss_mask'], 0);
    expect(Array.from(feeds.input_ids.data as Int32Array)).toEqual([0, 1, 2, 3, 7, 8, 0, 0, 0, 0, 0, 0]);
    // the next token where the row trains (loss_mask), the pad id elsewhere (no loss reads it)
    expect(Array.from(feeds.targets.data as Int32Array).slice(0, 6)).toEqual([0, 0, 0, 7, 8, 0]);
    expect(Array.from(feeds.loss_mask.data as Float32Array)).toEqual([0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('marks every agent turn of an episode row with 1/len weights and drops the oldest turns that do not fit', () => {
    const chat = [
      { role: 'system' as const, content: 'Is it' },
      { role: 'agent' as const, content: 'red?' },
      { role: 'user' as const, content: 'Yes.' },
      { role: 'agent' as const, content: 'GUESS: apple' },
      { role: 'user' as const, content: 'Yes.' },
    ];
    const full = episodeRow(tok, chat, 64);
    expect(full.droppedTurns).toBe(0);
    expect(full.spans.map((s) => s.turn)).toEqual([0, 1]);
    for (const s of full.spans) {
      const w = full.row.f.turn_weights?.slice(s.from, s.to) ?? [];
      expect(w.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
      // the last trained position predicts <|end|>
      expect(full.row.ids[s.to]).toBe(tok.special.end);
    }
    const cut = episodeRow(tok, chat, full.row.ids.length - 2);
    expect(cut.droppedTurns).toBe(1);
    expect(cut.spans.map((s) => s.turn)).toEqual([1]);
    expect(cut.row.ids.length).toBeLessThanOrEqual(full.row.ids.length - 2);
  });
});

describe('monitors', () => {
  const echo = { spreadDrop: 0.2, gradSpike: 5, distinctDrop: 0.25, rollbackOnSpike: false };
  it('warns of the Echo Trap signs', () => {
    expect(echoTrapWarnings(echo, { spread: 0.5, gradNorm: 1, distinct: 0.9 }, { spreads: [0.6], gradNorms: [1, 1], firstDistinct: 0.9 })).toEqual([]);
    // a family whose replies repeat by nature (17% distinct from the start) is no template collapse
    expect(echoTrapWarnings(echo, { spread: 0.5, gradNorm: 1, distinct: 0.17 }, { spreads: [0.6], gradNorms: [1, 1], firstDistinct: 0.2 })).toEqual([]);
    const w = echoTrapWarnings(echo, { spread: 0.05, gradNorm: 6, distinct: 0.1 }, { spreads: [0.6, 0.3], gradNorms: [1, 1, 2], firstDistinct: 0.5 });
    expect(w).toHaveLength(3);
    expect(w[0]).toMatch(/reward spread 0.050 fell below 20% of its best 0.600/);
    expect(w[1]).toMatch(/gradient norm 6.000 is 6.0× its recent median/);
    expect(w[2]).toMatch(/only 10% of replies are distinct, below 25% of the first iteration's 50%/);
  });

  it('flags NaN and loss spikes', () => {
    expect(isLossSpike(Number.NaN, [], 10, 1)).toBe(true);
    expect(isLossSpike(50, [1, 2], 10, 1)).toBe(false);
    expect(isLossSpike(50, [1, 2, 3], 10, 1)).toBe(true);
    expect(isLossSpike(0.5, [0.01, 0.01, 0.01], 10, 1)).toBe(false);
  });

  it('counts a guess with more than one candidate and a turn left as an early answer, not the forced guess of the last turn', () => {
    const turn = (reason: string, remainingBefore: number): EpisodeTurn => ({
      action: 'GUESS: x',
      reply: null,
      replySource: null,
      observation: '',
      reward: 0,
      done: true,
      info: { reason: reason as 'failed', invalidFormat: false, success: false, guess: 'x', remainingBefore },
      ...SCRIPTED,
    });
    expect(isEarlyAnswer(turn('failed', 3), 1, 4)).toBe(true);
    expect(isEarlyAnswer(turn('solved', 1), 1, 4)).toBe(false);
    // turn 4 of 4: no turn was left to ask, so guessing among 2 is the best move, not an early answer
    expect(isEarlyAnswer(turn('failed', 2), 3, 4)).toBe(false);
    expect(isEarlyAnswer(turn('solved', 2), 2, 4)).toBe(true);
  });

  it('reports running out of turns and wasted questions per episode on guess', () => {
    const info = (o: Record<string, unknown>) => ({ reason: 'question' as const, invalidFormat: false, success: false, ...o }) as EpisodeTurn['info'];
    const t = (o: Record<string, unknown>): EpisodeTurn => ({
      action: 'a',
      reply: null,
      replySource: null,
      observation: '',
      reward: 0,
      done: false,
      info: info(o),
      ...SCRIPTED,
    });
    const q = (useless: boolean) => t({ informationGain: useless ? 0 : 1, useless, repeated: false });
    const ep = (turns: EpisodeTurn[]) =>
      ({ task: { spec: { family: 'guess' }, maxTurns: 4 }, turns, totalReward: 0, success: false }) as unknown as RolloutEpisode;
    const m = rolloutMetrics([
      ep([q(true), q(false), q(true), t({ reason: 'turn-limit', informationGain: 1, useless: false, repeated: false })]),
      ep([q(false), t({ reason: 'solved', guess: 'x', remainingBefore: 3 })]),
    ]);
    expect(m.ran_out_of_turns_rate).toBe(0.5);
    expect(m.wasted_questions_mean).toBe(1);
    expect(m.wasted_question_episode_rate).toBe(0.5);
    expect(m.early_answer_rate).toBe(0.5);
  });

  it('adds thumbs to per-turn rewards', () => {
    const t: EpisodeTurn = {
      action: 'a',
      reply: null,
      replySource: null,
      observation: '',
      reward: 0.5,
      done: false,
      info: { reason: 'move', invalidFormat: false, success: false },
      ...SCRIPTED,
    };
    const ep = { turns: [t, { ...t, done: true }], totalReward: 1 } as unknown as RolloutEpisode;
    const out = applyThumbs(ep, [Number.NaN, -1], 2);
    expect(out.turns.map((x) => x.reward)).toEqual([0.5, -1.5]);
    expect(out.totalReward).toBe(-1);
  });
});

describe('success collapse guard', () => {
  it('fires on a drop below the recent mean beyond the threshold and 3 × the noise, not on the noise of a small iteration', () => {
    const fall = successCollapse(0.4, 128, [0.85, 0.8], 0.3);
    expect(fall).toMatchObject({ success: 0.4, iterations: 2 });
    expect(describeFall(fall!, 'collapsed')).toBe('rollout success collapsed to 40% from a mean of 83% over the last 2 iterations');
    expect(describeFall(fall!, 'fell')).toBe('rollout success fell to 40% from a mean of 83% over the last 2 iterations');
    expect(successCollapse(0.6, 128, [0.85, 0.8], 0.3)).toBeNull();
    // 8 tasks: 3 standard errors of a share near 0.85 are ~0.38, so a 0.35 drop is noise
    expect(successCollapse(0.5, 8, [0.85], 0.3)).toBeNull();
    expect(successCollapse(0, 128, [], 0.3)).toBeNull();
    expect(successCollapse(0, 128, [0.9], 1)).toBeNull();
  });

  it('measures the drop from the mean, and widens with the spread the iterations showed (new tasks every iteration)', () => {
    // a healthy GRPO run on guess (train split, 16 tasks × K 8): one low iteration after a high one
    // is the tasks' difficulty, not a collapse (the best-of-window rule rolled this run back)
    const healthy = [0.7, 0.63, 0.76, 0.77, 0.57, 0.78, 0.87, 0.66];
    expect(successCollapse(0.58, 128, [...healthy.slice(0, 6), 0.88], 0.3)).toBeNull();
    // a steady run falling by half collapses
    expect(successCollapse(0.35, 128, [0.8, 0.82, 0.78, 0.81], 0.3)).toMatchObject({ success: 0.35 });
    // the same fall within a run that swings ±0.15 per iteration is inside its noise
    expect(successCollapse(0.35, 128, [0.95, 0.6, 0.9, 0.6], 0.3)).toBeNull();
    // rejection fine-tuning on guess, seed 1 (six-f): iteration 7's 8 tasks were hard for every
    // algorithm; counted as 64 independent episodes the fall was a collapse, counted as 8 tasks it is
    // within their draw
    const rft = [0.86, 0.95, 0.91, 0.73, 0.89, 0.8];
    expect(successCollapse(0.53, 64, rft, 0.3)).toMatchObject({ success: 0.53 });
    expect(successCollapse(0.53, 8, rft, 0.3)).toBeNull();
  });

  it('is confirmed only when the adapters a rollback returns to clearly win the same tasks', () => {
    // per task, the share of its K = 8 episodes won
    const hard = [0.5, 0.25, 0.75, 0.5, 0.625, 0.375, 0.5, 0.875];
    // the same hard tasks for the reference adapters, a few episodes either way: the tasks, not a collapse
    expect(collapseConfirmed(hard, [0.625, 0.25, 0.625, 0.5, 0.75, 0.375, 0.375, 0.875], 0.3)).toBe(false);
    // the reference wins them: the current adapters collapsed
    expect(collapseConfirmed(hard, [1, 0.875, 1, 0.875, 1, 0.75, 1, 1], 0.3)).toBe(true);
    // a fall of half the threshold on one task only is within the paired noise
    expect(collapseConfirmed(hard, [0.5, 0.25, 0.75, 0.5, 0.625, 0.375, 0.5, 1], 0.3)).toBe(false);
    expect(collapseConfirmed([0], [1], 0.3)).toBe(false);
  });
});

describe('validation guard', () => {
  it('fires when the paired fall on the same tasks passes the threshold and 2.5 standard errors, not on a few flipped tasks', () => {
    const best = Array.from({ length: 64 }, (_, i) => (i % 4 === 0 ? 0 : 1)); // 75%
    // 12 tasks the best solved are lost, none gained: 56%
    const worse = best.map((x, i) => (i % 16 === 1 || i % 16 === 2 || i % 16 === 3 ? 0 : x));
    expect(validationDrop(worse, best, 0.05)).toMatch(/validation success fell to 56% from the best adapters' 75% on the same 64 tasks/);
    // 10 lost and 5 gained: a net 5 tasks (8 points) is within the sampling's churn
    const churn = best.map((x, i) => (i < 20 && (i % 4 === 1 || i % 4 === 2) ? 0 : i < 20 && i % 4 === 0 ? 1 : x));
    expect(validationDrop(churn, best, 0.05)).toBeNull();
    // below the threshold it never fires, however consistent
    expect(
      validationDrop(
        best.map((x, i) => (i === 1 ? 0 : x)),
        best,
        0.05,
      ),
    ).toBeNull();
    expect(validationDrop([], best, 0.05)).toBeNull();
  });

  it('takes new adapters as the best only when they beat it by 2 paired standard errors', () => {
    const best = Array.from({ length: 64 }, (_, i) => (i % 4 === 0 ? 0 : 1)); // 75%
    // 12 of the 16 tasks the best lost are won, none lost: 94%
    const better = best.map((x, i) => (i % 4 === 0 && i % 16 !== 0 ? 1 : x));
    expect(validationGain(better, best)).toBe(true);
    // 5 won and 3 lost: higher by 2 tasks (3 points), within the churn of sampling
    const churn = best.map((x, i) => (i === 4 || i === 8 || i === 12 || i === 16 || i === 20 ? 1 : i === 1 || i === 2 || i === 3 ? 0 : x));
    expect(meanOf(churn)).toBeGreaterThan(meanOf(best));
    expect(validationGain(churn, best)).toBe(false);
    // the same adapters, and a fall, are no gain
    expect(validationGain(best, best)).toBe(false);
    expect(
      validationGain(
        best.map(() => 0),
        best,
      ),
    ).toBe(false);
    expect(validationGain([1], [0])).toBe(false);
  });
});
