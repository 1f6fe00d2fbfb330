// Interface-level tests for every family: splits never share an episode, episodes replay exactly
// from their seeds and survive JSON, bad agent text ends a step with a reward and a reason, and the
// two-phase collaborator protocol is enforced.
import { describe, expect, it } from 'vitest';
import { replayEpisode } from '../../../src/rl/envs/episode.ts';
import { splitOfKey } from '../../../src/rl/envs/split.ts';
import type { AgentKind, Episode } from '../../../src/rl/envs/types.ts';
import { FAMILIES, createAgent, createEnv, FAMILY_NAMES } from '../../../src/rl/envs/registry.ts';
import { familyAgent } from '../../../src/rl/rollout/agents.ts';
import { evaluate } from '../../../src/rl/rollout/evaluate.ts';
import { playEpisode, type RolloutEpisode } from '../../../src/rl/rollout/rollout.ts';
import { timeless } from '../rollout/timeless.ts';

/** The Episode of a played episode, without the loop's slot fields; latency 0, the one wall-clock field. */
const asEpisode = (e: RolloutEpisode): Episode => ({
  task: e.task,
  agent: e.agent,
  turns: timeless(e.turns),
  totalReward: e.totalReward,
  success: e.success,
});

describe('splits', () => {
  it.each(FAMILY_NAMES)('%s: train and test tasks never share a key', (family) => {
    const env = createEnv(family);
    const keys = { train: new Set<string>(), test: new Set<string>() };
    for (const split of ['train', 'test'] as const) {
      for (let seed = 0; seed < 60; seed++) {
        const task = env.reset({ family, split, seed });
        expect(splitOfKey(task.key)).toBe(split);
        keys[split].add(task.key);
      }
    }
    for (const k of keys.test) expect(keys.train.has(k)).toBe(false);
    // Different seeds give different tasks (bandit has only ~100 keys per split).
    expect(keys.test.size).toBeGreaterThan(family === 'bandit' ? 30 : 50);
  });

  it('assigns about half of all keys to each split', () => {
    let test = 0;
    for (let i = 0; i < 2000; i++) if (splitOfKey(`k${i}`) === 'test') test++;
    expect(test).toBeGreaterThan(900);
    expect(test).toBeLessThan(1100);
  });
});

describe('determinism and serialisation', () => {
  const kinds: AgentKind[] = ['expert', 'noisy', 'random'];
  it.each(FAMILY_NAMES)('%s: episodes replay identically and round-trip through JSON', async (family) => {
    for (const kind of kinds) {
      for (const seed of [3, 4]) {
        const spec = { family, split: 'test' as const, seed };
        const a = asEpisode(await playEpisode(createAgent(kind, family, { seed }), spec));
        const b = asEpisode(await playEpisode(createAgent(kind, family, { seed }), spec));
        expect(b).toEqual(a);
        expect(replayEpisode(createEnv(family), a)).toEqual(a);
        expect(JSON.parse(JSON.stringify(a))).toEqual(a);
        expect(a.turns.length).toBeLessThanOrEqual(a.task.maxTurns);
        expect(a.turns[a.turns.length - 1].done).toBe(true);
      }
    }
  });

  it.each(FAMILY_NAMES)('%s: reset is a pure function of the spec', (family) => {
    const env = createEnv(family);
    const t1 = env.reset({ family, split: 'train', seed: 11 });
    env.step('hello');
    const t2 = env.reset({ family, split: 'train', seed: 11 });
    expect(t2).toEqual(t1);
    expect(t1.spec.options).toEqual(FAMILIES[family].defaults);
  });
});

describe('bad input', () => {
  const nasty = [
    '',
    ' ',
    'x'.repeat(1_000_000),
    String.fromCharCode(...Array.from({ length: 256 }, (_, i) => i)),
    '\u0000\uffff\ud800',
    '<script>alert(1)</script>',
    'I WANT TO ANSWER: ' + '('.repeat(1500),
    'I WANT TO ANSWER: repeat(repeat("x", 1000), 1000)',
    'I WANT TO ANSWER: 1e308 * 1e308',
    'I WANT TO ANSWER: <div onclick="steal()">x</div>',
    'I WANT TO ANSWER: <div style="background:url(http://evil.example/x.png)">x</div>',
    '<answer>Up</answer><answer>Left Right</answer>',
    'guess: guess: guess:',
  ];
  it.each(FAMILY_NAMES)('%s: every message ends its step with a finite reward and a reason', (family) => {
    const env = createEnv(family);
    for (const msg of nasty) {
      env.reset({ family, split: 'test', seed: 1 });
      const r = env.step(msg);
      expect(Number.isFinite(r.reward)).toBe(true);
      expect(typeof r.info.reason).toBe('string');
      expect(typeof r.observation).toBe('string');
      expect(r.observation.length).toBeLessThan(5000);
    }
  });

  it('oversized messages are refused with the format penalty', () => {
    const env = createEnv('guess');
    env.reset({ family: 'guess', split: 'test', seed: 1 });
    const r = env.step('is it a mammal?'.repeat(100));
    expect(r.info.reason).toBe('too-long');
    expect(r.info.invalidFormat).toBe(true);
  });
});

describe('protocol', () => {
  it('rejects steps before reset, after the end, and while a reply is pending', () => {
    const env = createEnv('guess');
    expect(() => env.step('x')).toThrow(/reset\(\) must be called/);
    env.reset({ family: 'guess', split: 'test', seed: 2 });
    const p = env.beginStep('does it have fur?');
    expect(p.kind).toBe('reply');
    expect(() => env.beginStep('x')).toThrow(/reply is pending/);
    env.completeStep('yes');
    expect(() => env.completeStep('yes')).toThrow(/no collaborator reply is pending/);
    env.step('guess: cat');
    expect(env.done).toBe(true);
    expect(() => env.step('x')).toThrow(/episode is over/);
  });

  it('rejects foreign specs and bad options with EnvError', () => {
    const env = createEnv('guess');
    expect(() => env.reset({ family: 'sokoban', split: 'test', seed: 1 })).toThrow(/a guess environment cannot run a sokoban task/);
    expect(() => env.reset({ family: 'guess', split: 'test', seed: 1, options: { bogus: 1 } })).toThrow(/unknown option "bogus"/);
    expect(() => env.reset({ family: 'guess', split: 'test', seed: 1, options: { candidates: 1 } })).toThrow(/"candidates" must be an integer in \[2, 32\]/);
  });

  it('playEpisode uses a supplied collaborator (a person) instead of the simulation', async () => {
    const seen: string[] = [];
    const ep = await playEpisode(
      createAgent('expert', 'backend', { seed: 1 }),
      { family: 'backend', split: 'test', seed: 5 },
      {
        collaborator: (req) => {
          seen.push(req.suggestion);
          return req.suggestion;
        },
      },
    );
    expect(seen.length).toBeGreaterThan(0);
    expect(ep.turns.every((t) => t.replySource === null || t.replySource === 'person')).toBe(true);
    expect(ep.success).toBe(true);
  });
});

describe('done-when figures (held-out, deterministic seeds)', () => {
  // 200 episodes per family are printed by `turnwise eval` (docs/envs.md); 50 keep this test fast,
  // except frozenlake, whose slippery outcomes need 200 for a stable rate.
  it.each(FAMILY_NAMES.filter((f) => f !== 'bandit'))('%s: expert at least 0.95 success (frontend: similarity), random at most 0.1', async (family) => {
    const cfg = { family, split: 'test' as const, episodes: family === 'frozenlake' ? 200 : 50, seed: 1000 };
    const expert = (await evaluate(cfg, familyAgent('expert', family))).summary;
    const random = (await evaluate(cfg, familyAgent('random', family))).summary;
    if (family === 'frontend') expect(expert.metrics.meanSimilarity).toBeGreaterThanOrEqual(0.95);
    else expect(expert.successRate).toBeGreaterThanOrEqual(0.95);
    expect(random.successRate).toBeLessThanOrEqual(0.1);
    expect(expert.passAt1[expert.passAt1.length - 1]).toBe(expert.successRate);
  });

  it('bandit: the expert pulls the risky arm (expected 0.25); random averages between', async () => {
    const cfg = { family: 'bandit' as const, split: 'test' as const, episodes: 100, seed: 1 };
    const expert = (await evaluate(cfg, familyAgent('expert', 'bandit'))).summary;
    const random = (await evaluate(cfg, familyAgent('random', 'bandit'))).summary;
    expect(expert.metrics.expectedReward).toBeCloseTo(0.25, 10);
    expect(random.metrics.expectedReward).toBeGreaterThan(0.15);
    expect(random.metrics.expectedReward).toBeLessThan(0.25);
  });
});

describe('streams', () => {
  it('vary the environment randomness but not the task', () => {
    const env = createEnv('bandit');
    const base = env.reset({ family: 'bandit', split: 'test', seed: 5 });
    const pulls = new Set<number>();
    for (let stream = 0; stream < 40; stream++) {
      const t = env.reset({ family: 'bandit', split: 'test', seed: 5, stream });
      expect(t.key).toBe(base.key);
      expect(t.spec.stream).toBe(stream === 0 ? undefined : stream);
      pulls.add(env.step(`<answer>${t.hidden.risky}</answer>`).reward);
    }
    expect([...pulls].sort()).toEqual([0, 1]);
  });

  it('replay keeps the stream', async () => {
    const spec = { family: 'frozenlake' as const, split: 'test' as const, seed: 2, stream: 9 };
    const ep = asEpisode(await playEpisode(createAgent('expert', 'frozenlake', { seed: 2 }), spec));
    expect(ep.task.spec.stream).toBe(9);
    expect(replayEpisode(createEnv('frozenlake'), ep)).toEqual(ep);
  });
});
