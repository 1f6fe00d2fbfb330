// Who plays a Play episode: the policy by default, the noisy expert while the policy is loading, not
// loaded, or not forged on the family, each time with a note saying so; the label Play shows.
import { describe, expect, it } from 'vitest';
import { agentInUse, agentKindOf, agentLabel, storedAgentLabel } from '../../../src/ui/state/agentChoice.ts';

const ready = { ready: true, loading: false, families: ['guess', 'backend', 'bandit'] };

describe('agent choice', () => {
  it('plays the policy when it is ready and forged on the family', () => {
    expect(agentInUse('policy', ready, 'guess')).toEqual({ kind: 'policy', note: null });
    expect(agentInUse('policy', { ready: true, loading: false }, 'sokoban')).toEqual({ kind: 'policy', note: null }); // no families recorded
  });

  it('stands in the noisy expert and says why', () => {
    expect(agentInUse('policy', { ready: false, loading: true }, 'guess')).toEqual({ kind: 'noisy', note: 'The policy is still loading — the noisy expert plays instead.' });
    expect(agentInUse('policy', { ready: false, loading: false }, 'guess').note).toMatch(/^No policy model is loaded \(see Settings → Models\)/);
    expect(agentInUse('policy', ready, 'frontend')).toEqual({ kind: 'noisy', note: 'The policy was trained on guess, backend, bandit, not frontend — the noisy expert plays instead.' });
  });

  it('stands in the noisy expert for a task whose prompt does not fit the policy, with the check\'s reason', () => {
    const fit = { kind: 'too-long', reason: "the policy's context is 256 tokens; this sokoban prompt needs 371 + 48 reply tokens", promptTokens: 371, replyTokens: 48, contextTokens: 256 } as const;
    expect(agentInUse('policy', { ready: true, loading: false, fit }, 'sokoban')).toEqual({ kind: 'noisy', note: "The policy's context is 256 tokens; this sokoban prompt needs 371 + 48 reply tokens — the noisy expert plays instead (or choose another agent)." });
    // a policy forged on sokoban with a context that fits plays it
    expect(agentInUse('policy', { ready: true, loading: false, families: ['sokoban'], fit: { kind: 'fits' } }, 'sokoban')).toEqual({ kind: 'policy', note: null });
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
    expect(['expert', 'random', 'noisy(0.3)', 'policy(T=1)', 'policy(greedy)', 'human'].map(agentKindOf)).toEqual(['expert', 'random', 'noisy', 'policy', 'policy', null]);
  });
});
