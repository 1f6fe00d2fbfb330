// Shortcut guards on the SHIPPED critic's SWEET-RL advantage (issue #18, issue #19 point 5):
// A(o_t, a_t, c) = β · mean_tokens [log π_critic − log π_ref] (credit/sweetAdvantage.ts), scored the
// way the lab scores it (rollout/criticInputs.ts: the critic with its active adapter vs its base).
//  1. on guess states with one turn left and two candidates remaining, guessing the hidden item
//     outranks every question (a question there is a certain loss), and the two guesses together
//     outrank the questions on average ("any question beats a guess" would fail this);
//  2. among the questions of one state, the advantage ranks them by information gain
//     (mean within-state Spearman ≥ 0.5).
// They apply to a critic forged by the SWEET-RL critic phase (src/rl/forge/critic.ts), which ships
// its adapter in critic/adapter/; a critic without one (the first generation's, shipped until the
// second-generation forge lands) gives A ≡ 0 by construction, and the suite is skipped with that
// reason. Set TURNWISE_CRITIC_MODELS=DIR to run them on another models root (e.g. the output of
// `npx turnwise forge --critic-only`).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { because } from '../../support/skip.ts';
import { SHIPPED_ADAPTER_FILES } from '../../../src/rl/model/folder/folder.ts';
import { spearman } from '../../../src/rl/credit/rank.ts';
import { sweetTurnAdvantage } from '../../../src/rl/credit/sweetAdvantage.ts';
import { dialogueOf } from '../../../src/rl/envs/episode.ts';
import { readState } from '../../../src/rl/envs/guess/agents.ts';
import { informationGain } from '../../../src/rl/envs/guess/logic.ts';
import { ATTRIBUTES, ITEMS } from '../../../src/rl/envs/guess/table.ts';
import { createAgent } from '../../../src/rl/envs/registry.ts';
import type { Task } from '../../../src/rl/envs/types.ts';
import type { Turn } from '../../../src/rl/envs/turn.ts';
import { criticInputs, type CriticEpisode } from '../../../src/rl/rollout/criticInputs.ts';
import { forgedTaskOptions, openModels } from '../../../src/rl/rollout/node.ts';
import { playEpisode } from '../../../src/rl/rollout/rollout.ts';
import type { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';

const ROOT = process.env.TURNWISE_CRITIC_MODELS ?? 'public/models';
const HAS_ADAPTER = existsSync(join(ROOT, 'critic', SHIPPED_ADAPTER_FILES[1]));

interface State {
  task: Task;
  prefix: Turn[];
  remaining: number[];
}

/** Test-split guess states (prefixes of noisy play) that `keep` accepts, one per task at most. */
async function states(keep: (remaining: number[], turnsLeft: number) => boolean, count: number): Promise<State[]> {
  const options = await forgedTaskOptions(ROOT, 'guess');
  const out: State[] = [];
  for (let seed = 1; out.length < count && seed < 5000; seed++) {
    const ep = await playEpisode(createAgent('noisy', 'guess', { seed, noise: 0.9 }), {
      family: 'guess',
      split: 'test',
      seed,
      ...(options ? { options } : {}),
    });
    for (let t = 0; t < ep.turns.length; t++) {
      const { remaining, turnsLeft } = readState(dialogueOf(ep.task.prompt, ep.turns.slice(0, t)));
      if (keep(remaining, turnsLeft)) {
        out.push({ task: ep.task, prefix: ep.turns.slice(0, t), remaining });
        break;
      }
    }
  }
  return out;
}

/** A(o, a, c) of each candidate action at each state, scored by the shipped critic as the lab does. */
async function advantages(engine: PolicyEngine, st: readonly State[], actions: (s: State) => string[]): Promise<number[][]> {
  const eps: CriticEpisode[] = [];
  const shape: number[] = [];
  for (const s of st) {
    const acts = actions(s);
    shape.push(acts.length);
    for (const a of acts) eps.push({ task: s.task, turns: [...s.prefix, { action: a, observation: '', reward: 0, done: true }] });
  }
  const inputs = await criticInputs(engine, eps);
  const adv = inputs.map((x) => {
    const T = x.rewards.length;
    const o = x.tokenOffsets as Int32Array;
    return sweetTurnAdvantage((x.criticLogprobs as Float32Array).subarray(o[T - 1], o[T]), (x.refLogprobs as Float32Array).subarray(o[T - 1], o[T]), 1);
  });
  let at = 0;
  return shape.map((n) => adv.slice(at, (at += n)));
}

let engine: PolicyEngine;
beforeAll(async () => {
  if (HAS_ADAPTER) engine = await openModels({ root: ROOT, backend: 'node', models: ['critic'] });
}, 60_000);
afterAll(async () => {
  await engine?.dispose();
});

const questions = ATTRIBUTES.map((a) => a.question);

const title = HAS_ADAPTER
  ? `the SWEET-RL advantage of ${ROOT}'s critic on guess`
  : `${ROOT}'s critic has no SWEET-RL adapter (critic/adapter/), so A ≡ 0: the shortcut guards wait for a critic forged by the critic phase`;
describe.skipIf(!HAS_ADAPTER)(title, because(title), () => {
  it('with one turn left and two candidates, guessing outranks asking', async () => {
    const st = await states((rem, left) => left === 1 && rem.length === 2, 40);
    expect(st.length).toBeGreaterThanOrEqual(20);
    const adv = await advantages(engine, st, (s) => [...s.remaining.map((i) => `guess: ${ITEMS[i].name}`), ...questions]);
    let rightBeatsAll = 0;
    let guessMean = 0;
    let questionMean = 0;
    st.forEach((s, k) => {
      const a = adv[k];
      const right = s.remaining.findIndex((i) => ITEMS[i].name === s.task.hidden.item);
      const qs = a.slice(2);
      if (a[right] > Math.max(...qs)) rightBeatsAll++;
      guessMean += (a[0] + a[1]) / 2 / st.length;
      questionMean += qs.reduce((x, y) => x + y, 0) / qs.length / st.length;
    });
    expect(rightBeatsAll / st.length).toBeGreaterThanOrEqual(0.9);
    expect(guessMean).toBeGreaterThan(questionMean);
  }, 900_000);

  it('ranks the questions of a state by information gain (mean within-state Spearman ≥ 0.5)', async () => {
    const st = await states((rem, left) => left >= 2 && rem.length >= 3, 30);
    expect(st.length).toBeGreaterThanOrEqual(20);
    const adv = await advantages(engine, st, () => questions);
    const rhos = st.flatMap((s, k) => {
      const rho = spearman(
        adv[k],
        ATTRIBUTES.map((_, j) => informationGain(s.remaining, j)),
      );
      return rho === null ? [] : [rho];
    });
    expect(rhos.length).toBeGreaterThanOrEqual(20);
    expect(rhos.reduce((a, b) => a + b, 0) / rhos.length).toBeGreaterThanOrEqual(0.5);
  }, 900_000);
});
