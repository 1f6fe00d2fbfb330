// Play's split of a turn's observation into the reply and the environment's status, on real guess
// steps, and the reading line under a person's answer.
import { describe, expect, it } from 'vitest';
import { GuessEnv } from '../../../src/rl/envs/guess/env.ts';
import { playTurn } from '../../../src/rl/envs/episode.ts';
import { readingOf, turnText } from '../../../src/ui/state/turnText.ts';

describe('turn text', () => {
  it('puts the reply in the bubble and the remaining candidates on their own line', async () => {
    const env = new GuessEnv();
    env.reset({ family: 'guess', split: 'test', seed: 5 });
    const t = await playTurn(env, 'does it have fur?', () => 'I think so');
    const { said, status } = turnText(t);
    expect(said).toBe('I think so');
    expect(status).toMatch(/^Remaining: .*\. Turns left: 4\.$/);
    expect(`${said} ${status}`).toBe(t.observation); // what the agent sees is unchanged
    expect(readingOf(t)).toBe('read as: yes');
  });

  it('keeps a step without a reply whole, and reads only a person', async () => {
    const env = new GuessEnv();
    const task = env.reset({ family: 'guess', split: 'test', seed: 5 });
    const simulated = await playTurn(env, 'does it have fur?');
    expect(readingOf(simulated)).toBeNull();
    const guess = await playTurn(env, `guess: ${task.hidden.item}`);
    expect(turnText(guess)).toEqual({ said: guess.observation, status: '' });
    expect(readingOf(guess)).toBeNull();
  });

  it('says when the question was not one the environment reads, and when nothing was ruled out', async () => {
    const env = new GuessEnv();
    env.reset({ family: 'guess', split: 'test', seed: 5 });
    expect(readingOf(await playTurn(env, 'what is the meaning of life?', () => 'yes'))).toMatch(/^not read/);
    expect(readingOf(await playTurn(env, 'does it have fur?', () => 'no idea'))).toBe('read as: unknown (no candidate ruled out)');
  });
});
