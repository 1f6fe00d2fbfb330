// The forge's DAgger labels (src/rl/forge/dagger.ts): which turns of a policy episode train, and the
// expert's move on each state where the policy did something else; checked by hand on guess.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SMOKE_FORGE } from '../../../src/rl/forge/presets.ts';
import { policyStageCount, validateForgeConfig, type DaggerConfig, type ForgeConfig } from '../../../src/rl/forge/config.ts';
import { runForge } from '../../../src/rl/forge/forge.ts';
import { loadModel } from '../../../src/rl/model/folder/folder.ts';
import { nodeReader, nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { daggerSeeds, labelEpisode, labelledSegments } from '../../../src/rl/forge/dagger.ts';
import { FAMILIES, createAgent } from '../../../src/rl/envs/registry.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import { segments, toChat } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { encodeChat } from '../../../src/rl/model/tokenizer/chat.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { dialogueOf } from '../../../src/rl/envs/episode.ts';
import { ATTRIBUTES } from '../../../src/rl/envs/guess/table.ts';

const expert = FAMILIES.guess.agents.expert;
const spec = { family: 'guess' as const, split: 'train' as const, seed: 11, options: { candidates: 4, maxTurns: 4 } };

describe('labelEpisode', () => {
  it("trains the whole episode once when every turn is the expert's", async () => {
    const ep = await playEpisode(createAgent('expert', 'guess', { seed: 1 }), spec);
    const { chats, agreed } = labelEpisode(ep, expert, 0.25);
    expect(agreed).toBe(ep.turns.length);
    expect(chats).toHaveLength(1);
    expect(chats[0].agentWeights).toEqual(ep.turns.map(() => 1));
    expect(chats[0].obsWeight).toBe(0.25);
  });

  it("labels each state where the policy differed with the expert's move, and trains none of its own mistakes", async () => {
    // noise 1: every question is a random one, so the expert disagrees wherever it would ask something else
    const ep = await playEpisode(createAgent('noisy', 'guess', { seed: 5, noise: 1 }), spec);
    const { chats, agreed } = labelEpisode(ep, expert, 0.25);
    const differed = ep.turns.length - agreed;
    expect(differed).toBeGreaterThan(0);
    const states = chats.filter((c) => c.obsWeight === 0);
    expect(states).toHaveLength(differed);
    for (const c of states) {
      const t = c.agentWeights.length - 1;
      // the state is the episode's own dialogue up to turn t; the last message is the expert's move there
      expect(c.dialogue.slice(0, -1)).toEqual(dialogueOf(ep.task.prompt, ep.turns.slice(0, t)));
      expect(c.dialogue.at(-1)).toEqual({ role: 'assistant', content: expert(c.dialogue.slice(0, -1)) });
      expect(c.dialogue.at(-1)?.content).not.toBe(ep.turns[t].action);
      expect(c.agentWeights).toEqual([...new Array<number>(t).fill(0), 1]);
    }
    const whole = chats.filter((c) => c.obsWeight > 0);
    if (agreed > 0) expect(whole[0].agentWeights.filter((w) => w === 1)).toHaveLength(agreed);
    else expect(whole).toHaveLength(0);
  });

  it("with the family's `lost`, leaves a sokoban board no moves can solve unlabelled: no placeholder move taught, none of its turns trained", async () => {
    const sokoban = FAMILIES.sokoban.agents;
    // random play until a push leaves the box stuck before the last turn (the step says so: info.stuck)
    let ep;
    let stuckAt = -1;
    for (let seed = 1; stuckAt < 0 || stuckAt >= (ep?.turns.length ?? 0) - 1; seed++) {
      ep = await playEpisode(createAgent('random', 'sokoban', { seed }), { family: 'sokoban', split: 'train', seed, options: {} });
      stuckAt = ep.turns.findIndex((t) => t.info.stuck === true);
    }
    if (!ep) throw new Error('unreachable');
    const after = ep.turns.length - 1 - stuckAt;
    const plain = labelEpisode(ep, sokoban.expert, 0.25);
    const skipping = labelEpisode(ep, sokoban.expert, 0.25, sokoban.lost);
    expect(plain.unlabelled).toBe(0);
    // the states after the stuck push are lost (and only those: the board before it could still be solved)
    expect(skipping.unlabelled).toBe(after);
    const labelled = (r: typeof plain) => r.chats.filter((c) => c.obsWeight === 0).map((c) => c.agentWeights.length - 1);
    expect(labelled(skipping).every((t) => t <= stuckAt)).toBe(true);
    expect(labelled(plain).filter((t) => t > stuckAt).length).toBe(ep.turns.slice(stuckAt + 1).filter((t) => t.action !== '<answer>Left</answer>').length);
    const whole = skipping.chats.find((c) => c.obsWeight > 0);
    expect(whole?.agentWeights.slice(stuckAt + 1).every((w) => w === 0) ?? true).toBe(true);
  });

  it('an expert question or guess on a state counts as agreement only when the text is the same', () => {
    const task = {
      prompt:
        'Guess the animal I am thinking of. Candidates: cat, dog, cow, owl. Each turn ask one yes or no question, like: does it have fur? Or guess, like: guess: cat. A wrong guess ends the game. You have 4 turns.',
      hidden: {},
    };
    const best = expert([{ role: 'user', content: task.prompt }]);
    const other = ATTRIBUTES.map((a) => a.question).find((q) => q !== best) as string;
    const turn = (action: string) => ({ action, observation: 'No.', reward: 0, done: false });
    expect(labelEpisode({ task, turns: [turn(` ${best} `)] } as never, expert, 0).agreed).toBe(1);
    expect(labelEpisode({ task, turns: [turn(other)] } as never, expert, 0).agreed).toBe(0);
  });
});

describe('segments with per-agent-turn weights', () => {
  it("a state's label trains only the expert's move", async () => {
    const ep = await playEpisode(createAgent('noisy', 'guess', { seed: 5, noise: 1 }), spec);
    const { chats } = labelEpisode(ep, expert, 0.25);
    const tok = fitTokenizer(
      chats.flatMap((c) => c.dialogue.map((m) => m.content)),
      { maxVocab: 2048, minCount: 1 },
    );
    const state = chats.find((c) => c.obsWeight === 0 && c.agentWeights.length > 1);
    if (!state) throw new Error('seed 5 should give a mistake after the first turn');
    const [seg] = labelledSegments(tok, [state], 4096);
    const enc = encodeChat(tok, toChat(state.dialogue));
    const last = enc.spans[enc.spans.length - 1];
    const trained = seg.weight.flatMap((w, t) => (w > 0 ? [t] : []));
    expect(trained).toEqual(Array.from({ length: last.end - last.start }, (_, i) => last.start - 1 + i));
  });

  it('drops a segment whose agent turns all weigh 0', () => {
    const tok = fitTokenizer(['hello there', 'is it big?'], { maxVocab: 512, minCount: 1 });
    const chat = toChat([
      { role: 'user', content: 'hello there' },
      { role: 'assistant', content: 'is it big?' },
      { role: 'user', content: 'No.' },
    ]);
    expect(segments(tok, chat, 1000, 0.5, { agentWeights: [0] })).toEqual([]);
    expect(segments(tok, chat, 1000, 0.5, { agentWeights: [1] })).toHaveLength(1);
  });
});

describe('DAgger rounds in the forge (smoke)', () => {
  it('plays the policy, labels its states, trains a round per stage, then the stages after the rounds; resumes before or after the rounds, not inside', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'forge-dagger-'));
    const beforeAfter = await mkdtemp(join(tmpdir(), 'forge-dagger-'));
    const resumedDir = await mkdtemp(join(tmpdir(), 'forge-dagger-'));
    try {
      const runtime = await OrtRuntime.create('node');
      // two candidates and two turns keep guess's prompt inside the tiny model's 128-token context
      const mix = [
        { family: 'guess' as const, weight: 1, options: { candidates: 2, maxTurns: 2 } },
        { family: 'bandit' as const, weight: 1 },
      ];
      const dagger = { rounds: 2, episodes: 8, steps: 2, lr: 1e-3, share: 0.5, expertShare: 1 };
      const afterDagger = [{ steps: 2, lr: 1e-3, weights: { guess: 1 }, expertShare: 1 }];
      const cfg = {
        ...SMOKE_FORGE,
        mix,
        refine: [],
        steps: 6,
        expertShare: 0.5,
        dagger,
        afterDagger,
        criticSteps: 0,
        valueSteps: 0,
        sweetCritic: null,
        evalEpisodes: 0,
      };
      const lines: string[] = [];
      const r = await runForge(cfg, { write: nodeWriter(dir), runtime, log: (l) => lines.push(l), command: 'test' });
      expect(r.phases.map((p) => p.phase)).toEqual(['policy', 'policy stage 2 (DAgger round 1)', 'policy stage 3 (DAgger round 2)', 'policy stage 4']);
      for (const p of r.phases.slice(1, 3)) {
        expect(p.steps).toBe(2);
        expect(p.dagger?.map((d) => d.family)).toEqual(['guess', 'bandit']);
        expect(p.dagger?.every((d) => d.episodes === 4 && d.turns >= 4 && d.agreement >= 0 && d.agreement <= 1)).toBe(true);
      }
      expect(lines.filter((l) => l.startsWith('[forge] DAgger round'))).toHaveLength(2);
      expect(lines).toContain('[forge] policy stage 4: 2 steps at lr 0.001; families guess 1; expert share 1');
      const start = { ...(await loadModel(nodeReader(dir), 'policy')), stagesDone: 2 };
      await expect(runForge(cfg, { write: nodeWriter(dir), runtime, log: () => {}, command: 'test', start })).rejects.toThrow(
        'cannot resume inside the DAgger rounds',
      );
      // resumed after the rounds from the policy they wrote, the last stage writes what the whole forge did
      await runForge({ ...cfg, afterDagger: [] }, { write: nodeWriter(beforeAfter), runtime, log: () => {}, command: 'test' });
      const afterRounds = { ...(await loadModel(nodeReader(beforeAfter), 'policy')), stagesDone: 3 };
      const resumed = await runForge(cfg, { write: nodeWriter(resumedDir), runtime, log: () => {}, command: 'test', start: afterRounds });
      expect(resumed.phases.map((p) => p.phase)).toEqual(['policy stage 4']);
      expect(resumed.manifest.policy.files.map((f) => [f.path, f.sha256])).toEqual(r.manifest.policy.files.map((f) => [f.path, f.sha256]));
    } finally {
      for (const d of [dir, beforeAfter, resumedDir]) await rm(d, { recursive: true, force: true });
    }
  }, 180_000);

  it('final DAgger rounds after the later stages play only their families, the finish stages follow them, and a forge resumes before the rounds or after them, not inside', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'forge-dagger-'));
    try {
      const runtime = await OrtRuntime.create('node');
      const mix = [
        { family: 'guess' as const, weight: 1, options: { candidates: 2, maxTurns: 2 } },
        { family: 'bandit' as const, weight: 1 },
      ];
      const finalDagger = { rounds: 2, episodes: 6, steps: 2, lr: 1e-3, share: 0.8, expertShare: 1, weights: { guess: 1 } };
      const afterDagger = [{ steps: 2, lr: 1e-3, weights: { bandit: 1 } }];
      const finish = [{ steps: 2, lr: 1e-3, weights: { bandit: 1 }, expertShare: 1 }];
      const cfg = {
        ...SMOKE_FORGE,
        mix,
        refine: [],
        steps: 4,
        dagger: null,
        afterDagger,
        finalDagger,
        finish,
        criticSteps: 0,
        valueSteps: 0,
        sweetCritic: null,
        evalEpisodes: 0,
      };
      const lines: string[] = [];
      const r = await runForge(cfg, { write: nodeWriter(dir), runtime, log: (l) => lines.push(l), command: 'test' });
      expect(r.phases.map((p) => p.phase)).toEqual([
        'policy',
        'policy stage 2',
        'policy stage 3 (final DAgger round 1)',
        'policy stage 4 (final DAgger round 2)',
        'policy stage 5',
      ]);
      for (const p of r.phases.slice(2, 4)) expect(p.dagger?.map((d) => [d.family, d.episodes])).toEqual([['guess', 6]]);
      expect(lines.filter((l) => l.startsWith('[forge] final DAgger round'))).toHaveLength(2);
      const start = { ...(await loadModel(nodeReader(dir), 'policy')), stagesDone: 3 };
      await expect(runForge(cfg, { write: nodeWriter(dir), runtime, log: () => {}, command: 'test', start })).rejects.toThrow(
        'cannot resume inside the final DAgger rounds (stages 3–4); resume from stage 2',
      );
      // after the rounds, only the finish runs
      const resumed = await runForge(cfg, { write: nodeWriter(dir), runtime, log: () => {}, command: 'test', start: { ...start, stagesDone: 4 } });
      expect(resumed.phases.map((p) => p.phase)).toEqual(['policy stage 5']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("teacherWeights set the families of the rounds' teacher dialogues: the mixture's own shares train the same policy as none, others another", async () => {
    const runtime = await OrtRuntime.create('node');
    // share 0: every training segment of the round is a teacher dialogue, so their families alone decide what it trains
    const rounds = { rounds: 1, episodes: 2, steps: 2, lr: 1e-3, share: 0, expertShare: 1, weights: { guess: 1 } };
    const policyOf = async (teacherWeights?: DaggerConfig['teacherWeights']) => {
      const dir = await mkdtemp(join(tmpdir(), 'forge-teacher-'));
      try {
        const cfg = roundsForge({ steps: 2, finalDagger: null, finish: [{ dagger: { ...rounds, ...(teacherWeights ? { teacherWeights } : {}) } }] });
        const r = await runForge(cfg, { write: nodeWriter(dir), runtime, log: () => {}, command: 'test' });
        return JSON.stringify(r.manifest.policy.files);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    };
    const none = await policyOf();
    expect(await policyOf({ guess: 1, bandit: 1 })).toBe(none);
    expect(await policyOf({ bandit: 1 })).not.toBe(none);
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, finalDagger: { ...rounds, teacherWeights: { sokoban: 1 } } })).toThrow(
      'forge: finalDagger teacherWeights must name families of the mixture (guess, bandit) with shares > 0',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, finalDagger: { ...rounds, skipLost: 'yes' as unknown as boolean } })).toThrow(
      'forge: finalDagger skipLost must be true or false',
    );
  }, 180_000);

  it('a finish step may be a block of DAgger rounds: it plays its own families on its own tasks between the stages around it, and a forge does not resume inside it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'forge-dagger-'));
    try {
      const runtime = await OrtRuntime.create('node');
      const rounds = { rounds: 2, episodes: 6, steps: 2, lr: 1e-3, share: 0.8, expertShare: 1, weights: { guess: 1 } };
      const cfg = roundsForge({
        steps: 4,
        finalDagger: rounds,
        finish: [{ steps: 2, lr: 1e-3, weights: { bandit: 1 } }, { dagger: rounds }, { steps: 2, lr: 1e-3, weights: { guess: 1 } }],
      });
      expect(policyStageCount(cfg)).toBe(7);
      const lines: string[] = [];
      const r = await runForge(cfg, { write: nodeWriter(dir), runtime, log: (l) => lines.push(l), command: 'test' });
      expect(r.phases.map((p) => p.phase)).toEqual([
        'policy',
        'policy stage 2 (final DAgger round 1)',
        'policy stage 3 (final DAgger round 2)',
        'policy stage 4',
        'policy stage 5 (finish step 2 DAgger round 1)',
        'policy stage 6 (finish step 2 DAgger round 2)',
        'policy stage 7',
      ]);
      for (const p of r.phases.slice(4, 6)) expect(p.dagger?.map((d) => [d.family, d.episodes])).toEqual([['guess', 6]]);
      // its own seeds: not the final rounds' tasks and labels again
      expect(daggerSeeds(1, 'finish 2')).not.toEqual(daggerSeeds(1, 'final'));
      const start = { ...(await loadModel(nodeReader(dir), 'policy')), stagesDone: 5 };
      await expect(runForge(cfg, { write: nodeWriter(dir), runtime, log: () => {}, command: 'test', start })).rejects.toThrow(
        'cannot resume inside the finish step 2 DAgger rounds (stages 5–6); resume from stage 4',
      );
      const resumed = await runForge(cfg, { write: nodeWriter(dir), runtime, log: () => {}, command: 'test', start: { ...start, stagesDone: 4 } });
      expect(resumed.phases.map((p) => p.phase).slice(0, 1)).toEqual(['policy stage 5 (finish step 2 DAgger round 1)']);
      expect(() => validateForgeConfig({ ...cfg, finish: [{ dagger: { ...rounds, share: 2 } }] })).toThrow('forge: finish needs whole rounds');
      // a student is a stage the forge may resume after, not one inside a block of rounds
      expect(() => validateForgeConfig({ ...cfg, student: 5 })).toThrow('forge: student stage 5 is inside a block of DAgger rounds');
      expect(() => validateForgeConfig({ ...cfg, student: 4 })).not.toThrow();
      expect(() => validateForgeConfig({ ...cfg, finish: [{ dagger: null as unknown as DaggerConfig }] })).toThrow(
        'forge: a finish step\'s "dagger" must be a JSON object of DAgger rounds',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

/** A smoke forge on guess (2 candidates, 2 turns) and bandit with no refine stages, critic or check: the tests of DAgger rounds among its finish steps. */
function roundsForge(over: Pick<ForgeConfig, 'steps' | 'finalDagger' | 'finish'>): ForgeConfig {
  return {
    ...SMOKE_FORGE,
    mix: [
      { family: 'guess', weight: 1, options: { candidates: 2, maxTurns: 2 } },
      { family: 'bandit', weight: 1 },
    ],
    refine: [],
    dagger: null,
    criticSteps: 0,
    valueSteps: 0,
    sweetCritic: null,
    evalEpisodes: 0,
    ...over,
  };
}
