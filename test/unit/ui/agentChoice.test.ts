// Who plays a Play episode: the policy by default, the noisy expert while the policy is loading, not
// loaded, or not forged on the family, each time with a note saying so; the label Play shows.
import { describe, expect, it } from 'vitest';
import { agentInUse, agentKindOf, agentLabel, forgedNote, policyModelOf, storedAgentLabel } from '../../../src/ui/state/agentChoice.ts';
import { criticFailure } from '../../../src/ui/state/criticFailure.ts';
import { forgedRecord } from '../../../src/rl/model/meta.ts';

const ready = { ready: true, loading: false, families: ['guess', 'backend', 'bandit'] };

describe('agent choice', () => {
  it('plays the policy when it is ready and forged on the family', () => {
    expect(agentInUse('policy', ready, 'guess')).toEqual({ kind: 'policy', note: null });
    expect(agentInUse('policy', { ready: true, loading: false }, 'sokoban')).toEqual({ kind: 'policy', note: null }); // no families recorded
  });

  it('stands in the noisy expert and says why', () => {
    expect(agentInUse('policy', { ready: false, loading: true }, 'guess')).toEqual({
      kind: 'noisy',
      note: 'The policy is still loading — the noisy expert plays instead.',
    });
    expect(agentInUse('policy', { ready: false, loading: false }, 'guess').note).toMatch(/^No policy model is loaded \(see Settings → Models\)/);
    expect(agentInUse('policy', ready, 'frontend')).toEqual({
      kind: 'noisy',
      note: 'The policy was trained on guess, backend, bandit, not frontend — the noisy expert plays instead.',
    });
  });

  it("stands in the noisy expert for a task whose prompt does not fit the policy, with the check's reason", () => {
    const fit = {
      kind: 'too-long',
      reason: "the policy's context is 256 tokens; this sokoban prompt needs 371 + 48 reply tokens",
      promptTokens: 371,
      replyTokens: 48,
      contextTokens: 256,
    } as const;
    expect(agentInUse('policy', { ready: true, loading: false, fit }, 'sokoban')).toEqual({
      kind: 'noisy',
      note: "The policy's context is 256 tokens; this sokoban prompt needs 371 + 48 reply tokens — the noisy expert plays instead (or choose another agent).",
    });
    // a policy forged on sokoban with a context that fits plays it
    expect(agentInUse('policy', { ready: true, loading: false, families: ['sokoban'], fit: { kind: 'fits' } }, 'sokoban')).toEqual({
      kind: 'policy',
      note: null,
    });
    expect(agentInUse('expert', { ready: true, loading: false, fit }, 'sokoban')).toEqual({ kind: 'expert', note: null });
  });

  it('plays a scripted agent as chosen, whatever the policy', () => {
    for (const kind of ['noisy', 'expert', 'random'] as const) {
      expect(agentInUse(kind, { ready: false, loading: true }, 'guess')).toEqual({ kind, note: null });
      expect(agentInUse(kind, ready, 'sokoban')).toEqual({ kind, note: null });
    }
  });

  it('names the agent and the adapter, and reads stored policy names back', () => {
    expect(agentLabel('policy', null)).toBe('policy · base');
    // a stored name's temperature is spelled out, never a bare "T=" beside a task's turn count
    expect(storedAgentLabel('policy(T=1)')).toBe('policy (temperature 1)');
    expect(storedAgentLabel('policy(T=0.7)')).toBe('policy (temperature 0.7)');
    expect(storedAgentLabel('policy(greedy)')).toBe('policy (greedy)');
    expect(storedAgentLabel('noisy(0.3)')).toBe('noisy(0.3)');
    expect(agentLabel('policy', 'train-grpo-guess-1/policy')).toBe('policy · adapter train-grpo-guess-1/policy');
    expect(agentLabel('noisy', null)).toBe('noisy expert');
    expect(agentLabel('expert', null)).toBe('scripted expert');
    expect(['expert', 'random', 'noisy(0.3)', 'policy(T=1)', 'policy(greedy)', 'human'].map(agentKindOf)).toEqual([
      'expert',
      'random',
      'noisy',
      'policy',
      'policy',
      null,
    ]);
  });

  it("tells the forge's student (a lesson's start) from the shipped policy, in labels and stored names", () => {
    expect(agentLabel('policy', null, 'student')).toBe('student · base');
    expect(agentLabel('policy', 'train-grpo-guess-1/policy', 'student')).toBe('student · adapter train-grpo-guess-1/policy');
    expect(storedAgentLabel('student(T=1)')).toBe('student (temperature 1)');
    expect(storedAgentLabel('student(greedy)')).toBe('student (greedy)');
    // a resumed episode plays on with the model that began it
    expect(['student(T=1)', 'policy(T=1)'].map(agentKindOf)).toEqual(['policy', 'policy']);
    expect(['student(T=1)', 'student(greedy)', 'policy(T=1)'].map(policyModelOf)).toEqual(['student', 'student', 'policy']);
  });
});

describe('what Play says before and during a game', () => {
  const meta = {
    heldOut: [
      { family: 'frontend', agent: 'noisy', episodes: 40, successRate: 0.95 },
      { family: 'frontend', agent: 'policy-sampled', episodes: 40, successRate: 0 },
      { family: 'frontend', agent: 'policy-greedy', episodes: 40, successRate: 0 },
      { family: 'guess', agent: 'policy-sampled', episodes: 40, successRate: 0.85 },
    ],
  };

  it("tells the policy's forged record on a family before it plays there", () => {
    expect(forgedRecord(meta, 'frontend')).toEqual({ episodes: 40, sampled: 0, greedy: 0, noisy: 0.95 });
    expect(forgedNote(forgedRecord(meta, 'frontend'), 'frontend')).toBe(
      'When it was forged, this policy solved 0% of 40 held-out frontend tasks (greedy 0%); the noisy expert it learned from, 95%.',
    );
    expect(forgedNote(forgedRecord(meta, 'guess'), 'guess')).toBe('When it was forged, this policy solved 85% of 40 held-out guess tasks.');
    expect(forgedRecord(meta, 'sokoban')).toBeNull();
    expect(forgedRecord({ heldOut: 'none' }, 'guess')).toBeNull();
    expect(forgedNote(null, 'guess')).toBeNull();
  });

  it('says in plain words why the critic could not score a turn', () => {
    const tooLong = { name: 'PromptTooLongError', message: 'score item 0 has 536 tokens; context and continuation together may have at most 512' };
    expect(criticFailure(tooLong)).toMatch(/^The critic cannot read this turn: the task's prompt and hidden information/);
    expect(criticFailure(tooLong)).not.toContain('score item');
    expect(criticFailure({ name: 'Error', message: 'the critic is not loaded' })).toBe('Credit that needs the critic is unavailable: the critic is not loaded');
  });
});
