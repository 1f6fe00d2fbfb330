// Hand-checked pieces of the forge: chat layout and windows, training segments, row packing with a
// block-diagonal causal bias, the learning-rate schedule, and the engine's sampler with the forge's
// vocabulary (its held-out check samples through the engine: special tokens but <|end|> banned).
import { describe, expect, it } from 'vitest';
import { ANSWERED_MARGIN, hiddenText, segments, toChat, windowIds } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { EpisodeStream, segmentStream } from '../../../src/rl/forge/data.ts';
import { packRows } from '../../../src/rl/algos/rows.ts';
import { dataOptions, isFinishDagger, policyStageCount, stageMix, validateForgeConfig, type StageAugment } from '../../../src/rl/forge/config.ts';
import { DEFAULT_FORGE, FIRST_GENERATION_FORGE, FOURTH_GENERATION_FORGE, SIX_FAMILY_FORGE, SMOKE_FORGE } from '../../../src/rl/forge/presets.ts';
import type { JsonObject } from '../../../src/rl/envs/types.ts';
import { learningRate } from '../../../src/rl/algos/driver.ts';
import { NEG_BIAS } from '../../../src/rl/model/llama/emit.ts';
import { validateConfig } from '../../../src/rl/model/llama/config.ts';
import { sampleToken } from '../../../src/rl/runtime/engine/sampling.ts';
import { encodePrompt } from '../../../src/rl/runtime/engine/prompts.ts';
import { encodeChat, encodeTurn } from '../../../src/rl/model/tokenizer/chat.ts';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { Rng } from '../../../src/rl/util/rng.ts';

const tok = fitTokenizer(['Guess the animal. ask one question', 'is it big? No. Remaining: cat, dog.', 'guess: cat Right.'], { maxVocab: 512, minCount: 1 });
const dialogue = [
  { role: 'user' as const, content: 'Guess the animal.' },
  { role: 'assistant' as const, content: 'is it big?' },
  { role: 'user' as const, content: 'No. Remaining: cat, dog.' },
  { role: 'assistant' as const, content: 'guess: cat' },
  { role: 'user' as const, content: 'Right.' },
];

describe('chat layout', () => {
  it('puts the prompt in the system turn and the hidden text after it for the critic', () => {
    expect(toChat(dialogue).map((m) => m.role)).toEqual(['system', 'agent', 'user', 'agent', 'user']);
    const critic = toChat(dialogue, { item: 'cat', facts: { big: false } });
    expect(critic[1]).toEqual({ role: 'hidden', content: 'item: cat' });
    expect(hiddenText({ fn: 'f', params: { a: 1 }, tests: [] })).toBe('fn: f; params: {"a":1}');
  });

  it('window: whole chat when it fits, else the prompt and the most recent turns from a user turn', () => {
    const chat = toChat(dialogue.slice(0, 3));
    const full = encodeChat(tok, chat, { addGenerationPrompt: true }).ids;
    expect(windowIds(tok, chat, 1000, 10)).toEqual(full);
    const head = encodeChat(tok, chat.slice(0, 1)).ids;
    const last = encodeTurn(tok, chat[2]);
    // room for the head, the last user turn, <|agent|> and the reserve only
    const ids = windowIds(tok, chat, head.length + last.length + 1 + 10, 10);
    expect(ids).toEqual([...head, ...last, tok.special.agent]);
  });

  it('keepAnswered: a cut window also keeps the agent turn its first reply answers, when a reply as long as that turn still fits', () => {
    const chat = toChat(dialogue.slice(0, 3));
    const head = encodeChat(tok, chat.slice(0, 1)).ids;
    const answered = encodeTurn(tok, chat[1]);
    const last = encodeTurn(tok, chat[2]);
    const reserve = 200; // far more than the answered turn needs, so the default rule drops it
    const fits = head.length + 1 + last.length + 2 * answered.length + ANSWERED_MARGIN;
    expect(windowIds(tok, chat, fits, reserve)).toEqual([...head, ...last, tok.special.agent]);
    expect(windowIds(tok, chat, fits, reserve, true)).toEqual([...head, ...answered, ...last, tok.special.agent]);
    // one token short of a reply as long as the answered turn: dropped as before
    expect(windowIds(tok, chat, fits - 1, reserve, true)).toEqual([...head, ...last, tok.special.agent]);
    // a window that is not cut is the whole chat either way
    expect(windowIds(tok, chat, 1000, 10, true)).toEqual(windowIds(tok, chat, 1000, 10));
    // the engine applies the rule its model was forged with (policyEngine.ts, score.ts: model/meta.ts keepsAnswered)
    const prompt = { messages: chat, window: { budget: fits } };
    expect(encodePrompt(tok, prompt, 'p', { reserve, keepAnswered: true })).toEqual(windowIds(tok, chat, fits, reserve, true));
    expect(encodePrompt(tok, prompt, 'p', { reserve, keepAnswered: false })).toEqual(windowIds(tok, chat, fits, reserve));
  });
});

describe('segments', () => {
  it('weighs agent tokens 1 and user tokens obsWeight, at the position before each token', () => {
    const chat = toChat(dialogue);
    const [seg] = segments(tok, chat, 1000, 0.5);
    const enc = encodeChat(tok, chat);
    expect(seg.ids).toEqual(enc.ids);
    for (const s of enc.spans.slice(1)) {
      const w = s.role === 'agent' ? 1 : 0.5;
      for (let t = s.start - 1; t < s.end - 1; t++) expect(seg.weight[t]).toBe(w);
      expect(seg.weight[s.end - 1]).toBe(0); // <|end|> predicts the next role token: not trained
    }
    expect(seg.weight.slice(0, enc.spans[0].end).every((w) => w === 0)).toBe(true);
  });

  it('weighs the prompt promptWeight, like a turn: role token … last content token, not its <|end|>', () => {
    const chat = toChat(dialogue);
    const [seg] = segments(tok, chat, 1000, 0.5, { promptWeight: 0.25 });
    const p = encodeChat(tok, chat).spans[0];
    expect(seg.weight.slice(0, p.end)).toEqual([0, ...new Array<number>(p.end - 2).fill(0.25), 0]);
    expect(p.start - 1).toBe(1); // <|bos|> <|system|> content…: the role token at 1 predicts the first content token
  });

  it('copyWeight multiplies the weight of the agent tokens the prompt or an earlier user turn holds, never a special token', () => {
    const chat = toChat(dialogue);
    const [plain] = segments(tok, chat, 1000, 0.5);
    const [seg] = segments(tok, chat, 1000, 0.5, { copyWeight: 3 });
    const enc = encodeChat(tok, chat);
    const text = (t: number) => tok.decode([seg.ids[t + 1]]).trim();
    // the second reply, "guess: cat": "cat" and ":" are in the user turn before it ("Remaining: cat, dog."), "guess" is not
    const reply = enc.spans[3];
    const weightOf = (word: string) => {
      for (let t = reply.start - 1; t < reply.end - 1; t++) if (text(t) === word) return seg.weight[t];
      throw new Error(`no token ${word}`);
    };
    expect(weightOf('cat')).toBe(3);
    expect(weightOf(':')).toBe(3);
    expect(weightOf('guess')).toBe(1);
    expect(seg.weight[reply.end - 2]).toBe(1); // the last content token predicts <|end|>, which every turn holds
    // the first reply, "is it big?", shares nothing with the prompt "Guess the animal."; user turns keep obsWeight
    for (let t = enc.spans[1].start - 1; t < enc.spans[1].end - 1; t++) expect(seg.weight[t]).toBe(1);
    expect(seg.weight.map((w, t) => (w === 3 ? plain.weight[t] : w))).toEqual(plain.weight);
    // a forge stage's copyWeight under 1 would weigh copies down: refused by name
    const stage = { steps: 10, lr: 1e-3, weights: { guess: 1 }, copyWeight: 0.5 };
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, refine: [stage] })).toThrow(
      'refine stage 1 needs steps > 0, lr > 0, promptWeight ≥ 0 and copyWeight ≥ 1',
    );
  });

  it('cuts long chats: every segment starts with the prompt and fits the budget; every agent turn is trained once', () => {
    const chat = toChat(dialogue);
    const head = encodeChat(tok, chat.slice(0, 1)).ids;
    const budget = head.length + encodeTurn(tok, chat[2]).length + encodeTurn(tok, chat[3]).length;
    const segs = segments(tok, chat, budget, 0);
    expect(segs.length).toBeGreaterThan(1);
    const agentTokens = segs.reduce((a, s) => a + s.weight.filter((w) => w === 1).length, 0);
    expect(agentTokens).toBe(encodeTurn(tok, chat[1]).length - 1 + encodeTurn(tok, chat[3]).length - 1);
    for (const s of segs) {
      expect(s.ids.length).toBeLessThanOrEqual(budget);
      expect(s.ids.slice(0, head.length)).toEqual(head);
    }
  });

  it('keepAnswered: a segment that starts at a user turn holds the agent turn it answers, untrained, when the next agent turn fits', () => {
    // three agent turns; the budget holds the head and the last three turns, so the last segment starts
    // at the last reply, and the agent turn that reply answers was trained in the segment before
    const chat = toChat([
      ...dialogue.slice(0, 4),
      { role: 'user' as const, content: 'No. Remaining: cat, dog.' },
      { role: 'assistant' as const, content: 'guess: cat' },
    ]);
    const head = encodeChat(tok, chat.slice(0, 1)).ids;
    const [answered, reply, next] = [3, 4, 5].map((i) => encodeTurn(tok, chat[i]));
    const budget = head.length + answered.length + reply.length + next.length;
    const plain = segments(tok, chat, budget, 0);
    const kept = segments(tok, chat, budget, 0, { keepAnswered: true });
    expect(plain.at(-1)?.ids).toEqual([...head, ...reply, ...next]);
    expect(kept.at(-1)?.ids).toEqual([...head, ...answered, ...reply, ...next]);
    // the answered turn is context only: the same agent tokens are trained, once each
    const trained = (segs: typeof plain) => segs.flatMap((s) => s.ids.filter((_, k) => k > 0 && s.weight[k - 1] === 1));
    expect(trained(kept)).toEqual(trained(plain));
    expect(
      kept
        .at(-1)
        ?.weight.slice(head.length, head.length + answered.length)
        .every((w) => w === 0),
    ).toBe(true);
    // one token short: the segment starts at the user turn, as without the option
    expect(segments(tok, chat, budget - 1, 0, { keepAnswered: true })).toEqual(segments(tok, chat, budget - 1, 0));
  });
});

describe('EpisodeStream', () => {
  it('spacedCss: frontend drafts come with their CSS spaced and the same outcomes; other families as played', async () => {
    const mix = [
      { family: 'frontend' as const, weight: 1 },
      { family: 'guess' as const, weight: 1, options: { candidates: 4, maxTurns: 4 } },
    ];
    const player = () => ({ kind: 'noisy' as const, noise: 0.3 });
    const [plain, spaced] = [false, true].map((on) => new EpisodeStream(mix, 'test', player, 'canonical', on));
    let drafts = 0;
    for (let i = 0; i < 12; i++) {
      const [a, b] = [await plain.next(), await spaced.next()];
      expect(b.success).toBe(a.success);
      expect(b.turns.map((t) => t.observation)).toEqual(a.turns.map((t) => t.observation));
      if (a.task.spec.family !== 'frontend') expect(b.turns.map((t) => t.action)).toEqual(a.turns.map((t) => t.action));
      else
        for (const [k, t] of b.turns.entries()) {
          expect(t.action.replace(/([a-z]): /g, '$1:').replace(/; /g, ';')).toBe(a.turns[k].action);
          if (t.action.includes('style=')) drafts++;
          expect(t.action).not.toMatch(/style="[a-z-]+:[^ ]/);
        }
    }
    expect(drafts).toBeGreaterThan(0);
  });

  it("asks for each episode's player by family, so a stage can give one family a cleaner teacher", async () => {
    const mix = [
      { family: 'bandit' as const, weight: 1 },
      { family: 'guess' as const, weight: 1, options: { candidates: 4, maxTurns: 4 } },
    ];
    const stream = new EpisodeStream(mix, 'test', (_, family) => ({ kind: 'noisy', noise: family === 'bandit' ? 0 : 1 }));
    const seen = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const ep = await stream.next();
      seen.add(ep.task.spec.family);
      const bandit = ep.task.spec.family === 'bandit';
      expect(ep.agent).toBe(bandit ? 'noisy(0)' : 'noisy(1)');
      // noise 0 on bandit: the expert's pick (the risky arm, success) every time
      if (bandit) expect(ep.success).toBe(true);
    }
    expect([...seen].sort()).toEqual(['bandit', 'guess']);
  });

  it("plays a family's tasks with its augmentation laid over its options (the held-out check and metadata keep the options)", async () => {
    const mix = [{ family: 'backend' as const, weight: 1, options: { maxTurns: 6 }, augment: { freeValues: 1 } }];
    expect(dataOptions(mix[0])).toEqual({ maxTurns: 6, freeValues: 1 });
    expect(dataOptions({ family: 'backend', weight: 1, options: { maxTurns: 6 } })).toEqual({ maxTurns: 6 });
    const stream = new EpisodeStream(mix, 'augment');
    for (let i = 0; i < 5; i++) expect((await stream.next()).task.spec.options).toMatchObject({ maxTurns: 6, freeValues: 1 });
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, mix: [{ family: 'guess', weight: 1, augment: [] as unknown as JsonObject }] })).toThrow(
      'forge: family guess: augment must be a JSON object, got []',
    );
  });

  it('every named preset passes validation; the third brings backend free values in at its free-values stage, not before, ends with DAgger rounds and a copy stage, and forges frozenlake with its board restated', () => {
    for (const cfg of [FIRST_GENERATION_FORGE, SIX_FAMILY_FORGE, DEFAULT_FORGE, SMOKE_FORGE]) expect(() => validateForgeConfig(cfg)).not.toThrow();
    const third = validateForgeConfig(DEFAULT_FORGE); // the third generation
    const freeValues = (mix: ReturnType<typeof stageMix>) => mix.find((m) => m.family === 'backend')?.augment?.freeValues;
    expect(freeValues(stageMix(third, third.firstStage?.weights, third.firstStage?.augment))).toBeUndefined();
    expect(third.refine.map((st) => freeValues(stageMix(third, st.weights, st.augment)))).toEqual([undefined, undefined]);
    expect((third.afterDagger ?? []).map((st) => freeValues(stageMix(third, st.weights, st.augment)))).toEqual([undefined, undefined, 0.5]);
    expect(freeValues(stageMix(third, third.finalDagger?.weights, third.finalDagger?.augment))).toBe(0.5);
    // the finish: free values in every step but the copy-weighted last stage, which its measurement had without them
    const finish = (third.finish ?? []).map((step) =>
      isFinishDagger(step)
        ? `rounds ${freeValues(stageMix(third, step.dagger.weights, step.dagger.augment))}`
        : freeValues(stageMix(third, step.weights, step.augment)),
    );
    expect(finish).toEqual([0.5, 0.5, 0.5, 0.5, 0.5, 'rounds 0.5', undefined]);
    expect(policyStageCount(third)).toBe(1 + 2 + 2 + 3 + 6 + 5 + 4 + 1);
    // task options, not an augmentation: the held-out check and the model's metadata (eval --forged) play it too
    expect(third.mix.find((m) => m.family === 'frozenlake')?.options).toEqual({ describe: 1 });
  });

  it("the fourth is the third with a sokoban stage after the student: the third's student resumes it", () => {
    const fourth = validateForgeConfig(FOURTH_GENERATION_FORGE);
    const third = validateForgeConfig(DEFAULT_FORGE);
    expect(fourth.student).toBe(19);
    expect({ ...fourth, finish: fourth.finish?.slice(0, 5) }).toEqual({ ...third, finish: third.finish?.slice(0, 5) });
    expect(fourth.finish?.slice(6)).toEqual(third.finish?.slice(5));
    expect(fourth.finish?.[5]).toMatchObject({ steps: 2000, weights: { sokoban: 0.62 } });
    expect(policyStageCount(fourth)).toBe(policyStageCount(third) + 1);
  });

  it("a stage's augmentation replaces the mixture's for the families it names ({} for none); the rest keep theirs", async () => {
    const cfg = validateForgeConfig({
      ...SMOKE_FORGE,
      mix: [
        { family: 'guess', weight: 1, options: { candidates: 4, maxTurns: 4 } },
        { family: 'backend', weight: 1, options: { maxTurns: 6 }, augment: { freeValues: 1 } },
        { family: 'frontend', weight: 1, augment: { freeWords: 1 } },
      ],
      refine: [{ steps: 4, lr: 1e-3, weights: { backend: 1, guess: 1 }, augment: { backend: {}, guess: { maxTurns: 3 } } }],
    });
    const stage = cfg.refine[0];
    const mix = stageMix(cfg, stage.weights, stage.augment);
    expect(mix.map((m) => [m.family, dataOptions(m)])).toEqual([
      ['guess', { candidates: 4, maxTurns: 3 }],
      ['backend', { maxTurns: 6 }],
    ]);
    // no stage augmentation: the mixture's, and no shares: every family at its weight
    expect(stageMix(cfg, undefined).map(dataOptions)).toEqual([{ candidates: 4, maxTurns: 4 }, { maxTurns: 6, freeValues: 1 }, { freeWords: 1 }]);
    expect(stageMix(cfg, undefined, { frontend: {} }).map(dataOptions)).toEqual([{ candidates: 4, maxTurns: 4 }, { maxTurns: 6, freeValues: 1 }, undefined]);
    // the stage's episodes are played on those options
    const stream = new EpisodeStream(stageMix(cfg, { backend: 1 }, { backend: {} }), 'stage-augment');
    for (let i = 0; i < 5; i++) expect((await stream.next()).task.spec.options).toMatchObject({ maxTurns: 6, freeValues: 0 });
    // validated where it enters: families of the mixture, JSON objects
    const bad = (augment: unknown) => validateForgeConfig({ ...cfg, refine: [{ ...stage, augment: augment as StageAugment }] });
    expect(() => bad({ sokoban: {} })).toThrow('forge: refine stage 1 augment must map families of the mixture to JSON objects of options');
    expect(() => bad({ backend: 3 })).toThrow('refine stage 1 augment');
    expect(() => bad([])).toThrow('refine stage 1 augment');
    expect(() => validateForgeConfig({ ...cfg, firstStage: { augment: { backend: [] } as unknown as StageAugment } })).toThrow('firstStage.augment');
    expect(() => validateForgeConfig({ ...cfg, finalDagger: { rounds: 1, episodes: 2, steps: 1, lr: 1e-3, share: 0.5, augment: { bandit: {} } } })).toThrow(
      'finalDagger augment',
    );
  });
});

describe('segment packing (algos/driver.ts RowStream, rows.ts packRows)', () => {
  it('packs segments into rows with restarting positions and a block-diagonal causal bias', async () => {
    const segs = [
      { ids: [1, 10, 11], weight: [0, 1, 0] },
      { ids: [1, 12], weight: [1, 0] },
      { ids: [1, 13, 14, 15], weight: [0, 0.5, 1, 0] },
    ];
    let i = 0;
    const cfg = validateConfig({ vocabSize: 32, dModel: 8, nLayers: 1, nHeads: 2, dFf: 16, maxSeq: 8 });
    const groups = await segmentStream({ cfg, batch: 2, seqLen: 5, padId: 0, kind: 'sft' }, async () => segs[i++ % segs.length]).next();
    const feeds = packRows(cfg, groups, 2, 5, ['loss_mask', 'weights'], 0, 'start');
    const tokens = groups.flat().reduce((a, r) => a + r.ids.length, 0);
    const trained = Array.from(feeds.loss_mask.data as Float32Array).filter((x) => x > 0).length;
    expect(Array.from(feeds.input_ids.data as ArrayLike<number>)).toEqual([1, 10, 11, 1, 12, 1, 13, 14, 15, 0]);
    expect(Array.from(feeds.position_ids.data as ArrayLike<number>)).toEqual([0, 1, 2, 0, 1, 0, 1, 2, 3, 0]);
    expect(Array.from(feeds.targets.data as ArrayLike<number>)).toEqual([0, 11, 0, 12, 0, 0, 14, 15, 0, 0]);
    expect(Array.from(feeds.weights.data as ArrayLike<number>)).toEqual([0, 1, 0, 1, 0, 0, 0.5, 1, 0, 0]);
    expect(tokens).toBe(9);
    expect(trained).toBe(4);
    const bias = feeds.attention_bias.data as Float32Array;
    const visible = (b: number, q: number) => Array.from(bias.subarray((b * 5 + q) * 5, (b * 5 + q + 1) * 5), (x) => (x === 0 ? 1 : x === NEG_BIAS ? 0 : NaN));
    expect(visible(0, 2)).toEqual([1, 1, 1, 0, 0]);
    expect(visible(0, 4)).toEqual([0, 0, 0, 1, 1]); // second segment sees only itself
    expect(visible(1, 4)).toEqual([0, 0, 0, 0, 1]); // padding sees itself
  });
});

describe('schedule and sampler', () => {
  it('warms up linearly and decays to 10% of the peak', () => {
    expect(learningRate(5, 1, 10, 100)).toBeCloseTo(0.5);
    expect(learningRate(10, 1, 10, 100)).toBeCloseTo(1);
    expect(learningRate(100, 1, 10, 100)).toBeCloseTo(0.1);
  });

  it('greedy takes the argmax outside the banned ids; sampling follows the softmax', () => {
    const banned = new Uint8Array(tok.vocabSize);
    for (const [name, id] of Object.entries(tok.special)) if (name !== 'end') banned[id] = 1;
    const greedy = { temperature: 0, topK: 0, topP: 1 };
    const sampled = { temperature: 1, topK: 0, topP: 1 };
    const a = tok.vocabSize - 2;
    const b = tok.vocabSize - 1;
    const logits = new Float32Array(tok.vocabSize).fill(-50);
    logits[tok.special.agent] = 10;
    logits[a] = 2;
    logits[b] = 2 + Math.log(3);
    expect(sampleToken(logits, greedy, new Rng(1), banned).token).toBe(b);
    const rng = new Rng(2);
    let n400 = 0;
    let n401 = 0;
    for (let i = 0; i < 4000; i++) {
      const id = sampleToken(logits, sampled, rng, banned).token;
      if (id === a) n400++;
      if (id === b) n401++;
      expect(id).not.toBe(tok.special.agent);
    }
    // the rest of the vocabulary is negligible: P(401)/P(400) = 3
    expect(n400 + n401).toBe(4000);
    expect(n401 / n400).toBeGreaterThan(2.6);
    expect(n401 / n400).toBeLessThan(3.4);
  });
});
