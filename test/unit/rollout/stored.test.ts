// Stored episodes as credit inputs: rewards on agent or reply records read the same, prompt and
// hidden information come from the record, credit returns aligned with the turn records.
import { describe, expect, it } from 'vitest';
import { annotations, fromRecord, rewardInput } from '../../../src/rl/rollout/stored.ts';
import type { EpisodeRecord, MessageRecord } from '../../../src/rl/store/schema.ts';

const turn = (role: MessageRecord['role'], text: string, reward = 0, done = false, tokens: number[] | null = null): MessageRecord => ({
  role,
  text,
  tokens,
  logprobs: null,
  promptTokens: 0,
  completionTokens: 0,
  reward,
  done,
  latencyMs: 0,
  backend: 'x',
  info: {},
  at: 1,
});

const record = (turns: MessageRecord[]): EpisodeRecord => ({
  type: 'episode',
  id: 'e1',
  runId: null,
  status: 'complete',
  task: { family: 'guess', split: 'test', seed: 3, options: {}, hidden: { item: 'fox' } },
  model: { policy: 'p', adapter: null, critic: null },
  turns,
  outcome: null,
  credit: [],
  createdAt: 1,
  updatedAt: 1,
  finishedAt: null,
  abortReason: null,
});

describe('stored episodes', () => {
  it('adds reply rewards to the agent turn before them and joins several replies', () => {
    const rec = record([
      turn('system', 'Guess the animal.'),
      turn('agent', 'Q1', 0.5, false, [4, 5]),
      turn('collaborator', 'yes', -0.1),
      turn('env', 'turn 1 used'),
      turn('agent', 'GUESS fox', 0),
      turn('env', 'right', 1, true),
    ]);
    const s = fromRecord(rec);
    expect(s.critic.task).toEqual({ prompt: 'Guess the animal.', hidden: { item: 'fox' } });
    expect(s.critic.turns.map((t) => [t.action, t.observation, t.done])).toEqual([
      ['Q1', 'yes\nturn 1 used', false],
      ['GUESS fox', 'right', true],
    ]);
    expect(s.critic.turns[0].reward).toBeCloseTo(0.4, 10);
    expect(s.critic.tokens).toEqual([[4, 5], null]);
    expect(s.agentRecords).toEqual([1, 4]);
    const input = rewardInput(s);
    expect(Array.from(input.rewards)).toEqual([Math.fround(0.4), 1]);
    expect(input.terminal).toBe(true);
    const [a] = annotations(rec, s, [{ estimator: 'mc', perTurn: Float32Array.from([1.4, 1]), params: { gamma: 1 } }], 'v', 2);
    expect(a.values.map((v) => (v === null ? null : Number(v.toFixed(4))))).toEqual([null, 1.4, null, null, 1, null]);
  });

  it('reads an episode without agent turns as empty, and a non-object hidden value', () => {
    const rec = { ...record([turn('system', 'p')]), task: { family: 'x', split: 'train' as const, seed: 1, options: {}, hidden: 'secret' } };
    const s = fromRecord(rec);
    expect(s.critic.turns).toEqual([]);
    expect(s.critic.task.hidden).toEqual({ hidden: 'secret' });
    expect(rewardInput(s).terminal).toBe(false);
  });
});
