import { describe, expect, it } from 'vitest';
import { anchorState, stepGroupAdvantages, type StepTurn } from '../../../src/rl/credit/stepGroups.ts';
import { GuessEnv } from '../../../src/rl/envs/guess/env.ts';

const turn = (state: string, reward: number): StepTurn => ({ state, reward });

describe('step-group advantages (GiGPO)', () => {
  it('compare turns that acted in the same state by their return from there', () => {
    // three episodes share the first state; two of them also share the second (same first move and
    // reply) and part there: one wins (1), one loses (0); the third went elsewhere at once
    const episodes = [
      [turn('s0', 0), turn('s0 a b', 1)],
      [turn('s0', 0), turn('s0 a b', 0)],
      [turn('s0', 0), turn('s0 c d', 0)],
    ];
    const { advantages, grouped } = stepGroupAdvantages(episodes, { gamma: 1, divideByStd: false });
    // first state: returns 1, 0, 0 → mean 1/3
    expect(advantages.map((a) => a[0])).toEqual([2 / 3, -1 / 3, -1 / 3].map((x) => expect.closeTo(x, 12)));
    // shared second state: 1 vs 0 → ±1/2; the lone state gets nothing
    expect(advantages[0][1]).toBeCloseTo(0.5, 12);
    expect(advantages[1][1]).toBeCloseTo(-0.5, 12);
    expect(advantages[2][1]).toBe(0);
    expect(grouped).toBe(5);
  });

  it('discount the return from a state, and divide by the group std when asked', () => {
    const episodes = [[turn('s', 0), turn('s x', 0), turn('s x y', 1)], [turn('s', 1)]];
    const { advantages } = stepGroupAdvantages(episodes, { gamma: 0.5, divideByStd: true });
    // returns from s: 0.25 and 1; mean 0.625, unbiased std = |1 − 0.25| / √2
    const std = 0.75 / Math.SQRT2;
    expect(advantages[0][0]).toBeCloseTo((0.25 - 0.625) / std, 12);
    expect(advantages[1][0]).toBeCloseTo((1 - 0.625) / std, 12);
    expect(advantages[0].slice(1)).toEqual([0, 0]);
  });

  it('give zeros to a group whose returns agree, and to an empty input', () => {
    const { advantages, grouped } = stepGroupAdvantages([[turn('s', 1)], [turn('s', 1)]], { gamma: 1, divideByStd: true });
    expect(advantages).toEqual([[0], [0]]);
    expect(grouped).toBe(2);
    expect(stepGroupAdvantages([], { gamma: 1, divideByStd: true })).toEqual({ advantages: [], grouped: 0 });
  });
});

describe('anchor states', () => {
  it('group two guess games in the same state whatever words the answers used, and fall back to the text elsewhere', () => {
    // the same task, the same question, the simulated collaborator phrasing its answer two ways
    const play = (reply: string) => {
      const env = new GuessEnv();
      const task = env.reset({ family: 'guess', split: 'test', seed: 11 });
      const pending = env.beginStep('is it a mammal?');
      if (pending.kind !== 'reply') throw new Error('a question asks for a reply');
      const truth = (task.hidden.facts as Record<string, boolean>).mammal;
      const r = env.completeStep(truth ? reply : reply.replace('Yes', 'No'));
      return {
        prompt: task.prompt,
        turns: [
          { action: 'is it a mammal?', observation: r.observation, info: r.info },
          { action: 'guess: cat', observation: '', info: { reason: 'failed' as const, invalidFormat: false, success: false } },
        ],
      };
    };
    const a = play('Yes.');
    const b = play('Yes, that is right.');
    expect(a.turns[0].observation).not.toBe(b.turns[0].observation);
    expect(anchorState(a.prompt, a.turns, 1)).toBe(anchorState(b.prompt, b.turns, 1));
    expect(anchorState(a.prompt, a.turns, 1)).toMatch(/^anchor:remaining .*; asked \d+; turn 1$/);
    // the first turn acts on the prompt; a turn after one without an anchor keys on the visible history
    expect(anchorState(a.prompt, a.turns, 0)).toBe(anchorState(b.prompt, b.turns, 0));
    const noAnchor = [{ action: 'hello', observation: 'hi', info: { reason: 'question' as const, invalidFormat: false, success: false } }];
    expect(anchorState('p', noAnchor, 1)).toBe(
      JSON.stringify([
        { role: 'user', content: 'p' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'hi' },
      ]),
    );
  });
});
