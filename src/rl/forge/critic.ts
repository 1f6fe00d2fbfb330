// The forge's critic phase: an asymmetric critic trained as SWEET-RL trains it (Zhou et al., arXiv
// 2503.15478, §4; docs/design.md "How the anchors train"), called after the policy stages:
//  1. base: the forged policy, SFT on noisy-expert dialogues with the task's hidden information c as
//     a message after the prompt (the critic's reference π_ref: this base with no adapter);
//  2. trajectories of the same train-split tasks from many policies: the forged policy (sampled at
//     T = 1 through the inference engine and the rollout loop), noisy experts at several noise
//     levels, the expert and random play; and the policy's re-rolls from one state of each of its
//     episodes (`branches`), all played by criticPlay.ts;
//  3. pairs: each task's best successful trajectory against each failed one, random play left out,
//     and per episode with re-rolls its best branch against its worst (criticPairs.ts);
//  4. a LoRA adapter on the base trained with Bradley–Terry on Σ_t A(chosen_t) − Σ_t A(rejected_t),
//     A(o_t, a_t, c) = β · mean_tokens [log π_critic(a_t|o_t,c) − log π_ref(a_t|o_t,c)] (eqs. 3–4),
//     for several epochs (the paper: 4 over ~15k trajectories), through the learner the SWEET-RL
//     trainer uses (algos/learner.ts, the 'bradley-terry' loss with source 'log-ratio'); held-out
//     pair accuracy after every epoch;
//  5. the value head regressed on returns-to-go (γ = 1) of the policy's own play, plus noisy and
//     random play for coverage, over the backbone with the adapter merged: the lab reads V(s) with
//     the adapter active (rollout/criticInputs.ts), so the head must fit those hidden states.
// The adapter ships in critic/adapter/ (PEFT files) and the engine makes it the critic's active
// adapter (runtime/policyEngine.ts), so the lab's SWEET-RL credit, `credit-report` and the SWEET-RL
// trainer read the same A with the same reference, the base.
import { DEFAULT_LORA } from '../algos/config.ts';
import { Learner } from '../algos/learner.ts';
import { episodeRow, type Row } from '../algos/rows.ts';
import { shippedAdapterFiles } from '../bridge/peft.ts';
import { dialogueOf } from '../envs/episode.ts';
import type { Episode } from '../envs/types.ts';
import type { LoadedModel } from '../model/folder/folder.ts';
import type { ModelConfig } from '../model/llama/config.ts';
import { mergeLora } from '../model/llama/merge.ts';
import { initWeights, type ModelWeights } from '../model/llama/weights.ts';
import { segments, toChat, windowIds } from '../model/tokenizer/dialogue.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import { SHIPPED_ADAPTER_ID } from '../runtime/engine/adapters.ts';
import type { Adapter } from '../runtime/engine/types.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import { PolicyEngine } from '../runtime/policyEngine.ts';
import { Rng } from '../util/rng.ts';
import type { ForgeConfig } from './config.ts';
import { branchSides, pairAccuracy, rowAdvantageSum, splitByTask, sweetPairs, type TrajectoryPair } from './criticPairs.ts';
import { EpisodeStream, type PackSegment, type Player } from './data.ts';
import { BRANCH, playAll, playBranches, playCandidateRerolls } from './criticPlay.ts';
import { sftGraph, sftPhase, valuePhase, type PhaseReport } from './train.ts';

/** One epoch's figures. */
export interface CriticEpoch {
  epoch: number;
  loss: number;
  /** Mean Bradley–Terry accuracy of the epoch's steps (before each step's update). */
  trainAccuracy: number;
  /** Held-out pairs ranked right by Σ_t A after the epoch. */
  heldOutAccuracy: number;
  seconds: number;
}

/** What the phase did, for forge-report.json. */
export interface CriticReport {
  /** Trajectories by player. */
  trajectories: Record<string, number>;
  /** Success rate by player. */
  success: Record<string, number>;
  /** Training and held-out pairs; `branch`: how many of all pairs are branch pairs. */
  pairs: { train: number; heldOut: number; branch: number };
  epochs: CriticEpoch[];
  /** The epoch whose adapter ships: the best on the held-out pairs (with none held out, NaN ties keep the last). */
  keptEpoch: number;
  seconds: { base: number; play: number; reference: number; bradleyTerry: number; value: number; total: number };
}

/** The phase's products. */
export interface CriticPhaseResult {
  /** The critic's base (the reference π_ref) without the value head. */
  backbone: ModelWeights;
  /** v_head.summary.{weight,bias}. */
  head: ModelWeights;
  /** The SWEET-RL adapter (null for the first generation's critic, `sweetCritic: null`). */
  adapter: Adapter | null;
  /** Files to add to the critic folder: adapter/adapter_config.json, adapter/adapter_model.safetensors. */
  files: Record<string, Uint8Array>;
  phases: PhaseReport[];
  report: CriticReport | null;
}

/** The policy the critic starts from and judges. */
export interface CriticPolicy {
  tokenizer: Tokenizer;
  config: ModelConfig;
  weights: ModelWeights;
}

/** Endless hidden-information segments of noisy-expert episodes (the critic base's SFT data). */
function hiddenSegments(stream: EpisodeStream, tok: Tokenizer, seqLen: number, obsWeight: number): () => Promise<PackSegment> {
  const queue: PackSegment[] = [];
  return async () => {
    while (queue.length === 0) {
      const ep = await stream.next();
      queue.push(...segments(tok, toChat(dialogueOf(ep.task.prompt, ep.turns), ep.task.hidden), seqLen, obsWeight));
    }
    return queue.shift() as PackSegment;
  };
}

/** Value samples: the critic's window before each agent turn, target = the return from that turn on (γ = 1). */
export function valueSamples(ep: Episode, tok: Tokenizer, seqLen: number): PackSegment[] {
  const out: PackSegment[] = [];
  let ret = ep.turns.reduce((a, t) => a + t.reward, 0);
  for (let t = 0; t < ep.turns.length; t++) {
    const ids = windowIds(tok, toChat(dialogueOf(ep.task.prompt, ep.turns.slice(0, t)), ep.task.hidden), seqLen, 0);
    if (ids.length <= seqLen) {
      const weight = new Array<number>(ids.length).fill(0);
      const returns = new Array<number>(ids.length).fill(0);
      weight[ids.length - 1] = 1;
      returns[ids.length - 1] = ret;
      out.push({ ids, weight, returns });
    }
    ret -= ep.turns[t].reward;
  }
  return out;
}

/** log π(ids[j+1] | ids[≤j]) at every position j of each row under the critic with `adapter` (null: the base). */
async function rowLogprobs(engine: PolicyEngine, rows: readonly Row[], adapter: string | null): Promise<number[][]> {
  const out: number[][] = [];
  for (let at = 0; at < rows.length; at += 128) {
    const chunk = rows.slice(at, at + 128);
    const r = await engine.score({
      model: 'critic',
      adapter,
      items: chunk.map((row) => ({ context: { ids: row.ids.slice(0, 1) }, continuation: row.ids.slice(1) })),
    });
    r.items.forEach((it, i) => {
      const lp = new Array<number>(chunk[i].ids.length).fill(0);
      it.logprobs.forEach((v, j) => (lp[j] = v));
      out.push(lp);
    });
  }
  return out;
}

/** Runs the critic phase after the policy stages: base SFT, SWEET-RL pairs and Bradley–Terry adapter, value head. */
export async function criticPhase(
  cfg: ForgeConfig,
  run: { runtime: OrtRuntime; log: (line: string) => void },
  policy: CriticPolicy,
): Promise<CriticPhaseResult> {
  const sc = cfg.sweetCritic;
  const { log, runtime } = run;
  const tok = policy.tokenizer;
  const model = policy.config;
  const t0 = performance.now();
  const since = (t: number) => (performance.now() - t) / 1000;
  const phases: PhaseReport[] = [];

  // 1. the base: the policy, SFT with the hidden information in the prompt
  let backbone = policy.weights;
  if (cfg.criticSteps > 0) {
    const stream = new EpisodeStream(cfg.mix, `${cfg.seed}/critic`, () => ({ kind: 'noisy', noise: cfg.noise }), cfg.phrasings);
    const r = await sftPhase(
      runtime,
      sftGraph(model, policy.weights, cfg.batch, cfg.seqLen),
      policy.weights,
      { cfg: model, batch: cfg.batch, seqLen: cfg.seqLen, padId: tok.special.pad, kind: 'sft' },
      hiddenSegments(stream, tok, cfg.seqLen, cfg.obsWeight),
      {
        phase: 'critic',
        steps: cfg.criticSteps,
        lr: cfg.lr / 3,
        warmup: Math.min(cfg.warmup, Math.floor(cfg.criticSteps / 2)),
        logEvery: cfg.logEvery,
        log,
      },
    );
    backbone = r.weights;
    phases.push(r.report);
  }
  const tBase = since(t0);
  if (!sc) return { backbone, head: await firstGenerationValueHead(cfg, run, model, tok, backbone, phases), adapter: null, files: {}, phases, report: null };

  const base: LoadedModel = {
    config: model,
    tokenizer: tok,
    weights: backbone,
    heads: {},
    files: {},
    turnwise: { contextTokens: cfg.seqLen, maxReplyTokens: cfg.maxReplyTokens },
  };
  const engine = new PolicyEngine();
  let learner: Learner | null = null;
  try {
    await engine.init(runtime.info.kind);
    await engine.loadFrom('policy', { kind: 'model', model: { ...base, weights: policy.weights } }, { precision: 'fp32', adapterSlot: null });
    await engine.loadFrom('critic', { kind: 'model', model: base }, { precision: 'fp32', adapterSlot: DEFAULT_LORA });

    // 2. trajectories of many policies on the same tasks
    const t1 = performance.now();
    const played = await playAll(engine, cfg, sc, log);
    const groups = await playBranches(engine, cfg, sc, played, log);
    await playCandidateRerolls(engine, cfg, sc, played, groups, log);
    const tPlay = since(t1);
    await engine.unload('policy');

    // 3. pairs: each task's best success against its failures and the branch pairs (held-out tasks for accuracy), as the
    // critic's episode rows the SWEET-RL trainer builds (algos/sweet.ts); an episode whose prompt,
    // hidden message and last turn overflow the window cannot be scored whole and is left out
    const t2 = performance.now();
    // random play is left out of the pairs (kept for the value head): against it, a pair can be won by how
    // the whole dialogue looks rather than by any one turn; branch pairs add turn-level contrasts (the
    // first measurement with both: docs/experiments/2026-12-02-sweet-critic-branch-pairs.md)
    const pool = played.episodes.flatMap((_, i) => (played.player[i] === 'random' || played.player[i] === BRANCH ? [] : [i]));
    const sides = branchSides(
      groups,
      (i) => played.episodes[i].totalReward,
      sc.branchRows,
      played.episodes.length,
      (i, t) => played.episodes[i].turns[t]?.action ?? '',
    );
    const branched = new Set(sides.pairs);
    const paired = [
      ...(sc.trajectoryPairs
        ? sweetPairs(
            pool.map((i) => ({ task: played.task[i], reward: played.episodes[i].totalReward, success: played.episodes[i].success })),
            sc.maxRejected,
            cfg.seed,
          ).map(([c, r]): TrajectoryPair => [pool[c], pool[r]])
        : []),
      ...branched,
    ];
    const rowOf = new Map<number, Row>();
    for (const i of [...new Set(paired.flat())].sort((a, b) => a - b)) {
      const e = played.episodes[sides.episodeOf(i)];
      const turns = e.turns.slice(0, sides.cutAfter.get(i) ?? e.turns.length);
      try {
        rowOf.set(i, episodeRow(tok, toChat(dialogueOf(e.task.prompt, turns), e.task.hidden), cfg.seqLen).row);
      } catch (err) {
        if ((err as Error).name !== 'AlgoError') throw err;
      }
    }
    const all = paired.filter(([c, r]) => rowOf.has(c) && rowOf.has(r));
    const { train, heldOut } = splitByTask(all, (i) => played.task[sides.episodeOf(i)], sc.heldOutEvery);
    const branchCount = all.filter((p) => branched.has(p)).length;
    log(
      `[forge critic] ${played.episodes.length} trajectories; ${train.length} training pairs, ${heldOut.length} held-out pairs (${branchCount} of them branch pairs)${all.length < paired.length ? ` (${paired.length - all.length} pairs dropped: an episode overflows the ${cfg.seqLen}-token window)` : ''}`,
    );
    const used = [...new Set(all.flat())].sort((a, b) => a - b);
    const rows = used.map((i) => rowOf.get(i) as Row);
    const ref = await rowLogprobs(engine, rows, null);
    rows.forEach((row, k) => (row.f.ref_logp = ref[k]));
    const tRef = since(t2);

    // 4. the Bradley–Terry adapter, held-out pair accuracy after each epoch
    const t3 = performance.now();
    learner = await Learner.create(runtime, {
      target: 'critic',
      model: base,
      lora: DEFAULT_LORA,
      base: 'fp32',
      loss: { kind: 'bradley-terry', source: 'log-ratio', beta: sc.beta, pairs: sc.pairBatch, ridge: sc.ridge },
      batch: 2 * sc.pairBatch,
      seqLen: cfg.seqLen,
      adamw: { lr: sc.lr, maxGradNorm: 1, weightDecay: 0 },
      seed: cfg.seed * 1000 + 2,
      initStd: 1 / Math.sqrt(model.dModel),
    });
    const heldRows = [...new Set(heldOut.flat())];
    const heldAccuracy = async (adapter: Adapter | null): Promise<number> => {
      if (heldOut.length === 0) return Number.NaN;
      if (adapter) await engine.setAdapter(SHIPPED_ADAPTER_ID, adapter, { model: 'critic', activate: false });
      const lps = await rowLogprobs(
        engine,
        heldRows.map((i) => rowOf.get(i) as Row),
        adapter ? SHIPPED_ADAPTER_ID : null,
      );
      const score = new Map(
        heldRows.map((i, k) => [i, rowAdvantageSum(lps[k], (rowOf.get(i) as Row).f.ref_logp ?? [], (rowOf.get(i) as Row).f.turn_weights ?? [], sc.beta)]),
      );
      return pairAccuracy(heldOut, (i) => score.get(i) ?? 0);
    };
    const pairRows = train.map(([c, r]): [Row, Row] => [rowOf.get(c) as Row, rowOf.get(r) as Row]);
    const rng = new Rng(`forge/critic/${cfg.seed}`);
    const epochs: CriticEpoch[] = [];
    // replayed until held-out accuracy stops rising (issue #46): the adapter of the epoch that ranked the
    // held-out pairs best is kept. On guess's lesson and backend (3,181 training pairs) it was the
    // first, 0.829, while later epochs fitted the training pairs (0.88 → 0.98) and fell to 0.812.
    let kept: { epoch: number; accuracy: number; adapter: Adapter } | null = null;
    for (let ep = 1; ep <= sc.epochs; ep++) {
      const te = performance.now();
      learner.lr = sc.lr * (0.1 + 0.45 * (1 + Math.cos((Math.PI * (ep - 1)) / Math.max(1, sc.epochs))));
      const s = await learner.trainPairs(pairRows, 1, (n) => rng.shuffle(Array.from({ length: n }, (_, i) => i)));
      const now = learner.adapter();
      const acc = await heldAccuracy(now);
      if (!kept || !(acc <= kept.accuracy)) kept = { epoch: ep, accuracy: acc, adapter: now };
      epochs.push({ epoch: ep, loss: s.loss, trainAccuracy: s.stats.bt_accuracy ?? Number.NaN, heldOutAccuracy: acc, seconds: since(te) });
      log(
        `[forge critic] epoch ${ep}/${sc.epochs}: ${s.steps} steps, loss ${s.loss.toFixed(4)}, train pair accuracy ${(s.stats.bt_accuracy ?? NaN).toFixed(3)}, held-out pair accuracy ${acc.toFixed(3)} (${heldOut.length} pairs), lr ${learner.lr.toExponential(2)}, ${since(te).toFixed(0)} s`,
      );
    }
    const adapter = kept?.adapter ?? learner.adapter();
    if (kept && kept.epoch < sc.epochs) log(`[forge critic] kept epoch ${kept.epoch}'s adapter, the best on the held-out pairs (${kept.accuracy.toFixed(3)})`);
    phases.push({
      phase: 'critic bradley-terry',
      steps: learner.steps,
      tokens: learner.meter.tokens,
      seconds: since(t3),
      firstLoss: epochs[0]?.loss ?? NaN,
      lastLoss: epochs[epochs.length - 1]?.loss ?? NaN,
      curve: epochs.map((e) => e.loss),
    });
    const tBt = since(t3);

    // 5. value head on returns of the policy's own play (+ noisy and random play for coverage)
    const t4 = performance.now();
    const init = initWeights(model, cfg.seed, { heads: { value: true } });
    let head: ModelWeights = { 'v_head.summary.weight': init['v_head.summary.weight'], 'v_head.summary.bias': init['v_head.summary.bias'] };
    if (cfg.valueSteps > 0) {
      const cover = new Set(['policy', `noisy ${sc.noises[0]}`, 'random']);
      const samples = rng.shuffle(played.episodes.flatMap((e, i) => (cover.has(played.player[i]) ? valueSamples(e, tok, cfg.seqLen) : [])));
      let next = 0;
      const take = async () => samples[next++ % samples.length];
      const r = await valuePhase(
        runtime,
        model,
        mergeLora(model, backbone, adapter),
        head,
        { cfg: model, batch: cfg.batch, seqLen: cfg.seqLen, padId: tok.special.pad, kind: 'value' },
        take,
        { phase: 'value', steps: cfg.valueSteps, lr: 1e-2, warmup: 0, logEvery: cfg.logEvery, log },
      );
      head = r.weights;
      phases.push(r.report);
    }
    const tValue = since(t4);

    const files = shippedAdapterFiles(model, adapter, {
      baseModel: '..',
      metadata: { turnwise: 'SWEET-RL critic adapter (Bradley–Terry); reference = the critic without it', forge_seed: String(cfg.seed) },
    });
    const count = (pred: (i: number) => boolean) => played.episodes.filter((_, i) => pred(i)).length;
    const names = [...new Set(played.player)];
    const report: CriticReport = {
      trajectories: Object.fromEntries(names.map((n) => [n, count((i) => played.player[i] === n)])),
      success: Object.fromEntries(
        names.map((n) => [
          n,
          count((i) => played.player[i] === n && played.episodes[i].success) /
            Math.max(
              1,
              count((i) => played.player[i] === n),
            ),
        ]),
      ),
      pairs: { train: train.length, heldOut: heldOut.length, branch: branchCount },
      epochs,
      keptEpoch: kept?.epoch ?? sc.epochs,
      seconds: { base: tBase, play: tPlay, reference: tRef, bradleyTerry: tBt, value: tValue, total: since(t0) },
    };
    log(
      `[forge critic] done in ${report.seconds.total.toFixed(0)} s (base ${tBase.toFixed(0)}, play ${tPlay.toFixed(0)}, reference ${tRef.toFixed(0)}, Bradley–Terry ${tBt.toFixed(0)}, value ${tValue.toFixed(0)})`,
    );
    return { backbone, head, adapter, files, phases, report };
  } finally {
    await learner?.dispose();
    await engine.dispose();
  }
}

/**
 * The shipped (first-generation) critic's value head, for `sweetCritic: null`: regressed on
 * Monte-Carlo returns of noisy (the config's noise), noisier (0.7) and random play over the frozen
 * SFT critic, which has no SWEET-RL adapter (its SWEET credit is 0 by construction).
 */
async function firstGenerationValueHead(
  cfg: ForgeConfig,
  run: { runtime: OrtRuntime; log: (line: string) => void },
  model: ModelConfig,
  tok: Tokenizer,
  backbone: ModelWeights,
  phases: PhaseReport[],
): Promise<ModelWeights> {
  const init = initWeights(model, cfg.seed, { heads: { value: true } });
  const head: ModelWeights = { 'v_head.summary.weight': init['v_head.summary.weight'], 'v_head.summary.bias': init['v_head.summary.bias'] };
  if (cfg.valueSteps === 0) return head;
  const players: Player[] = [{ kind: 'noisy', noise: cfg.noise }, { kind: 'noisy', noise: 0.7 }, { kind: 'random' }];
  const stream = new EpisodeStream(cfg.mix, `${cfg.seed}/value`, (rng: Rng) => rng.pick(players), cfg.phrasings);
  const queue: PackSegment[] = [];
  const take = async () => {
    while (queue.length === 0) queue.push(...valueSamples(await stream.next(), tok, cfg.seqLen));
    return queue.shift() as PackSegment;
  };
  const r = await valuePhase(
    run.runtime,
    model,
    backbone,
    head,
    { cfg: model, batch: cfg.batch, seqLen: cfg.seqLen, padId: tok.special.pad, kind: 'value' },
    take,
    { phase: 'value', steps: cfg.valueSteps, lr: 1e-2, warmup: 0, logEvery: cfg.logEvery, log: run.log },
  );
  phases.push(r.report);
  return r.weights;
}
