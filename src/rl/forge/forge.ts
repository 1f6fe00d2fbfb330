// The forge (issue #4 point 5; docs/design.md "The default models are ours"): trains the default policy
// and critic from the task suite's noisy-expert dialogues and writes them in the Hugging Face layout.
//   1. fit the word-level tokenizer on dialogues of every family in the mixture;
//   2. policy: full-parameter SFT on packed context-window segments (agent tokens weigh 1, the
//      collaborator's and environment's tokens `obsWeight`, an auxiliary loss that helps copying);
//   3. critic (critic.ts): the policy's weights, SFT with the hidden information in the prompt (the
//      reference); with `sweetCritic` set, SWEET-RL's Bradley–Terry LoRA adapter on trajectory pairs
//      of many policies and a value head on returns of the policy's own play, else (the shipped first
//      generation) a value head on noisy, noisier and random play;
//   4. held-out check of the 4-bit policy (sampled at T = 1 and greedy) against random/noisy/expert;
//   5. write policy/ and critic/ (config.json, tokenizer files, model.safetensors, onnx/ 4-bit prefill
//      and decode graphs) and manifest.json with sizes and sha256.
// Everything is seeded; the data, initialisation and evaluation are deterministic from `seed`.
import { dialogueOf } from '../envs/episode.ts';
import { createAgent, type FamilyName } from '../envs/registry.ts';
import { writeManifest, writeModelFolder, type ModelFolderContent, type WriteBytes } from '../model/folder/folder.ts';
import { validateConfig, type ModelConfig } from '../model/llama/config.ts';
import { buildGraph } from '../model/llama/graphs.ts';
import { blocksQuant4, paramSource } from '../model/llama/params.ts';
import { countParams, initWeights, type ModelWeights } from '../model/llama/weights.ts';
import type { ManifestModel } from '../model/manifest.ts';
import { fitTokenizer } from '../model/tokenizer/fit.ts';
import type { Tokenizer } from '../model/tokenizer/tokenizer.ts';
import type { OrtRuntime } from '../runtime/ort.ts';
import { PolicyEngine } from '../runtime/policyEngine.ts';
import { playEpisode } from '../rollout/rollout.ts';
import { hiddenText, segments, toChat, type SegmentOptions } from '../model/tokenizer/dialogue.ts';
import {
  daggerBlockName,
  dataOptions,
  ForgeConfigError,
  policyPlan,
  policyStageCount,
  resumeBlock,
  stageMix,
  validateForgeConfig,
  type DaggerBlock,
  type DaggerConfig,
  type ForgeConfig,
  type RefineStage,
  type StageAugment,
} from './config.ts';
import { EpisodeStream, teacher, teacherStyle, type PackSegment, type Packing } from './data.ts';
import { DaggerPool, daggerSeeds, labelledSegments, playAndLabel } from './dagger.ts';
import { criticPhase, type CriticReport } from './critic.ts';
import { heldOut, type HeldOutRow } from './heldout.ts';
import { sftGraph, sftPhase, type PhaseReport } from './train.ts';

/** Where and how the forge writes and reports. */
export interface ForgeRun {
  /** Writes files under the models root (nodeWriter(public/models) for the CLI). */
  write: WriteBytes;
  /** The runtime the train steps and the held-out check run on (onnxruntime-node for speed). */
  runtime: OrtRuntime;
  /** Progress lines. */
  log: (line: string) => void;
  /** The command line recorded in the manifest. */
  command: string;
  /**
   * Continue from this policy (its tokenizer, architecture and weights) instead of fitting and
   * initialising. With `stagesDone` k, the policy is the result of this config's first k policy
   * stages, which are skipped: the rest of the forge then writes what the whole forge would.
   */
  start?: { tokenizer: Tokenizer; config: ModelConfig; weights: ModelWeights; stagesDone?: number; student?: ModelWeights };
  /**
   * Called after every policy stage a forge may resume after (config.ts resumeBlock) with the policy
   * so far and the phases this run has trained, so an interrupted forge can go on from there (the CLI's `--resume`);
   * from the config's `student` stage on, with the student's policy too (a resumed forge ships it: `start.student`).
   */
  checkpoint?: (stagesDone: number, policy: ModelFolderContent, phases: PhaseReport[], student?: ModelFolderContent) => Promise<void>;
  /** Seconds an interrupted forge ran before this run resumed it: the manifest's wall time is theirs plus this run's. */
  earlierSeconds?: number;
}

/** What the forge produced. */
export interface ForgeResult {
  config: ForgeConfig;
  model: ModelConfig;
  /** Parameters of the policy (the critic adds d + 1 for its value head). */
  parameters: number;
  vocabSize: number;
  phases: PhaseReport[];
  heldOut: HeldOutRow[];
  manifest: Record<string, ManifestModel>;
  seconds: number;
  /** The SWEET-RL critic phase's pairs, epochs and timings (null: the first generation's critic, `sweetCritic: null`). */
  critic: CriticReport | null;
}

/** Dialogue texts of each family for the tokenizer (expert, noisy and random players; plus hidden texts). */
async function tokenizerCorpus(cfg: ForgeConfig): Promise<string[]> {
  const corpus: string[] = [];
  for (const m of cfg.mix) {
    const options = dataOptions(m);
    for (let i = 0; i < cfg.tokenizerEpisodes; i++) {
      const kind = (['expert', 'noisy', 'random'] as const)[i % 3];
      const seed = 7_000_000 + i;
      const played = await playEpisode(createAgent(kind, m.family, { seed, noise: cfg.noise }), {
        family: m.family,
        split: 'train',
        seed,
        ...(options ? { options } : {}),
      });
      const ep = cfg.spacedCss ? teacherStyle(played) : played;
      corpus.push(ep.task.prompt, hiddenText(ep.task.hidden));
      for (const t of ep.turns) corpus.push(t.action, t.observation);
    }
  }
  return corpus;
}

/** Endless segments of a stream's episodes; `hidden` puts the task's hidden information in the prompt. */
function segmentSource(
  stream: EpisodeStream,
  tok: Tokenizer,
  seqLen: number,
  obsWeight: number,
  hidden: boolean,
  opts: SegmentOptions = {},
): () => Promise<PackSegment> {
  const queue: PackSegment[] = [];
  return async () => {
    while (queue.length === 0) {
      const ep = await stream.next();
      const chat = toChat(dialogueOf(ep.task.prompt, ep.turns), hidden ? ep.task.hidden : undefined);
      queue.push(...segments(tok, chat, seqLen, obsWeight, opts));
    }
    return queue.shift() as PackSegment;
  };
}

/** A stage's own augmentation for its progress line ('' when it has none). */
function augmentNote(augment: StageAugment | undefined): string {
  if (!augment) return '';
  return `; augmentation ${Object.entries(augment)
    .map(([f, a]) => `${f} ${JSON.stringify(a)}`)
    .join(', ')}`;
}

/** Runs the whole forge. */
export async function runForge(input: ForgeConfig, run: ForgeRun): Promise<ForgeResult> {
  const cfg = validateForgeConfig(input);
  const t0 = performance.now();
  const { log } = run;
  log(`[forge] seed ${cfg.seed}; families ${cfg.mix.map((m) => `${m.family} ${m.weight}`).join(', ')}; noise ${cfg.noise}`);

  const tok = run.start ? run.start.tokenizer : fitTokenizer(await tokenizerCorpus(cfg), { maxVocab: cfg.maxVocab });
  const model = run.start
    ? run.start.config
    : validateConfig({ vocabSize: tok.vocabSize, dModel: cfg.dModel, nLayers: cfg.nLayers, nHeads: cfg.nHeads, dFf: cfg.dFf, maxSeq: cfg.seqLen });
  if (model.maxSeq !== cfg.seqLen)
    throw new ForgeConfigError('seqLen', `forge: the starting policy's context is ${model.maxSeq}, the config's seqLen ${cfg.seqLen}`);
  const parameters = countParams(model);
  log(
    `[forge] tokenizer ${tok.vocabSize} tokens; model d ${model.dModel} × ${model.nLayers} layers, ${model.nHeads} heads, ff ${model.dFf}, context ${model.maxSeq}: ${parameters} parameters`,
  );

  const init = initWeights(model, cfg.seed, { heads: { value: true } });
  const backbone: ModelWeights = run.start ? { ...run.start.weights } : Object.fromEntries(Object.entries(init).filter(([k]) => !k.startsWith('v_head.')));
  if (run.start)
    log(`[forge] continuing from a policy of ${countParams(model)} parameters${run.start.stagesDone ? ` after policy stage ${run.start.stagesDone}` : ''}`);
  // one train-step graph per row length the stages use (a curriculum stage may train on shorter rows)
  const graphs = new Map<number, ReturnType<typeof sftGraph>>();
  const graphOf = (seqLen: number) => {
    const g = graphs.get(seqLen) ?? sftGraph(model, backbone, cfg.batch, seqLen);
    graphs.set(seqLen, g);
    return g;
  };
  // the policy as an engine plays it (the window and reply budget it ships with)
  // tasks: the options each family was forged on, read back as model metadata (model/meta.ts taskOptions)
  const tasks = Object.fromEntries(cfg.mix.flatMap((m) => (m.options ? [[m.family, m.options]] : [])));
  // the policy's window rule, in its segments and its metadata; absent when off, so presets write what they wrote
  const keepAnswered = cfg.keepAnswered ? { keepAnswered: true } : {};
  const spacedCss = cfg.spacedCss === true;
  const shippedModel = (weights: ModelWeights) => ({
    config: model,
    tokenizer: tok,
    weights,
    heads: {},
    files: {},
    turnwise: { contextTokens: cfg.seqLen, maxReplyTokens: cfg.maxReplyTokens, tasks, ...keepAnswered },
  });
  const packer = (seqLen = cfg.seqLen): Packing => ({ cfg: model, batch: cfg.batch, seqLen, padId: tok.special.pad, kind: 'sft' });
  const phaseOpts = (phase: string, steps: number) => ({
    phase,
    steps,
    lr: cfg.lr,
    warmup: Math.min(cfg.warmup, Math.floor(steps / 2)),
    logEvery: cfg.logEvery,
    log,
  });

  const done = run.start?.stagesDone ?? 0;
  const allStages = policyStageCount(cfg);
  if (done > allStages) throw new ForgeConfigError('refine', `forge: ${done} policy stages done, but the config has ${allStages}`);
  const blocked = resumeBlock(cfg, done);
  if (blocked) {
    const field = blocked.block === 'dagger' ? 'dagger' : blocked.block === 'final' ? 'finalDagger' : 'finish';
    throw new ForgeConfigError(field, `forge: ${blocked.reason}`);
  }
  let policy: { weights: ModelWeights } = { weights: backbone };
  const phases: PhaseReport[] = [];
  // the student: the policy after stage `cfg.student`, written beside the shipped one (a resumed forge past it brings it along)
  const pastStudent = cfg.student !== undefined && done >= cfg.student;
  let student = pastStudent ? run.start?.student : undefined;
  if (pastStudent && !student)
    throw new ForgeConfigError('student', `forge: the student's stage ${cfg.student} is among the ${done} stages done, but the start holds no student`);
  const stageDone = async (n: number) => {
    if (n === cfg.student) student = policy.weights;
    const studentModel = student ? shippedModel(student) : undefined;
    if (run.checkpoint && resumeBlock(cfg, n) === null) await run.checkpoint(n, shippedModel(policy.weights), phases, studentModel);
  };
  if (done < 1) {
    const S = cfg.firstStage?.seqLen ?? cfg.seqLen;
    const mix = stageMix(cfg, cfg.firstStage?.weights, cfg.firstStage?.augment);
    const policyStream = new EpisodeStream(
      mix,
      `${cfg.seed}/policy`,
      teacher(() => cfg.noise, cfg.expertShare),
      cfg.phrasings,
      spacedCss,
    );
    if (cfg.firstStage)
      log(
        `[forge] policy stage 1: families ${mix.map((m) => `${m.family} ${m.weight}`).join(', ')}; rows of ${S} tokens${augmentNote(cfg.firstStage.augment)}`,
      );
    const r = await sftPhase(run.runtime, graphOf(S), backbone, packer(S), segmentSource(policyStream, tok, S, cfg.obsWeight, false, keepAnswered), {
      ...phaseOpts('policy', cfg.steps),
      ...(cfg.policySeconds ? { maxSeconds: cfg.policySeconds } : {}),
    });
    policy = r;
    phases.push(r.report);
    await stageDone(1);
  }
  // a later SFT stage (refine, after the DAgger rounds, or the finish): its own shares, teacher, rows and learning rate
  const sftStage = async (stage: RefineStage, n: number) => {
    const S = stage.seqLen ?? cfg.seqLen;
    const expertShare = stage.expertShare ?? cfg.expertShare;
    const stream = new EpisodeStream(
      stageMix(cfg, stage.weights, stage.augment),
      `${cfg.seed}/policy/stage${n}`,
      teacher((family) => stage.noise?.[family] ?? cfg.noise, expertShare),
      cfg.phrasings,
      spacedCss,
    );
    const noises = Object.entries(stage.noise ?? {}).map(([f, x]) => `${f} ${x}`);
    log(
      `[forge] policy stage ${n}: ${stage.steps} steps at lr ${stage.lr}; families ${Object.entries(stage.weights)
        .map(([f, w]) => `${f} ${w}`)
        .join(
          ', ',
        )}${stage.promptWeight ? `; prompt tokens weigh ${stage.promptWeight}` : ''}${stage.copyWeight ? `; copied tokens weigh ×${stage.copyWeight}` : ''}${noises.length ? `; teacher noise ${noises.join(', ')}` : ''}${expertShare !== cfg.expertShare ? `; expert share ${expertShare}` : ''}${S !== cfg.seqLen ? `; rows of ${S} tokens` : ''}${augmentNote(stage.augment)}`,
    );
    const r = await sftPhase(
      run.runtime,
      graphOf(S),
      policy.weights,
      packer(S),
      segmentSource(stream, tok, S, cfg.obsWeight, false, { promptWeight: stage.promptWeight, copyWeight: stage.copyWeight, ...keepAnswered }),
      {
        ...phaseOpts(`policy stage ${n}`, stage.steps),
        lr: stage.lr,
      },
    );
    policy = r;
    phases.push(r.report);
    await stageDone(n);
  };

  // DAgger rounds numbered from stage `first + 1`; each block draws its own tasks and teacher dialogues
  const dagger = async (d: DaggerConfig, first: number, block: DaggerBlock) => {
    const tag = daggerBlockName(block).replace('rounds', 'round');
    const seeds = daggerSeeds(cfg.seed, block);
    const pool = new DaggerPool(seeds.pool);
    const stream = new EpisodeStream(
      stageMix(cfg, d.teacherWeights, d.augment),
      seeds.teacher,
      teacher(() => cfg.noise, d.expertShare ?? cfg.expertShare),
      cfg.phrasings,
      spacedCss,
    );
    const teacherSegments = segmentSource(stream, tok, cfg.seqLen, cfg.obsWeight, false, keepAnswered);
    const mix = stageMix(cfg, d.weights, d.augment);
    if (d.augment) log(`[forge] ${tag}s${augmentNote(d.augment)}`);
    for (let r = 0; r < d.rounds; r++) {
      const stage = first + r + 1;
      const t0 = performance.now();
      const engine = new PolicyEngine();
      let played;
      try {
        await engine.init(run.runtime.info.kind);
        await engine.loadFrom('policy', { kind: 'model', model: shippedModel(policy.weights) }, { precision: 'fp32', adapterSlot: null });
        played = await playAndLabel(engine, {
          mix,
          episodes: d.episodes,
          seed: seeds.play + r,
          maxReplyTokens: cfg.maxReplyTokens,
          obsWeight: cfg.obsWeight,
          phrasings: cfg.phrasings,
          spacedCss,
          skipLost: d.skipLost,
        });
      } finally {
        await engine.dispose();
      }
      pool.add(labelledSegments(tok, played.chats, cfg.seqLen, cfg.keepAnswered === true));
      const seen = played.stats
        .map(
          (x) =>
            `${x.family} ${(100 * x.successRate).toFixed(0)}% success, ${(100 * x.agreement).toFixed(0)}% of ${x.turns} turns as the expert${x.unlabelled ? ` (${x.unlabelled} on lost states, unlabelled)` : ''}`,
        )
        .join('; ');
      log(
        `[forge] ${tag} ${r + 1} (policy stage ${stage}): the policy played ${played.stats.reduce((a, x) => a + x.episodes, 0)} train episodes in ${((performance.now() - t0) / 1000).toFixed(0)} s — ${seen}; ${pool.size} labelled segments so far`,
      );
      const rr = await sftPhase(run.runtime, graphOf(cfg.seqLen), policy.weights, packer(), pool.source(d.share, teacherSegments), {
        ...phaseOpts(`policy stage ${stage} (${tag} ${r + 1})`, d.steps),
        lr: d.lr,
      });
      policy = rr;
      phases.push({ ...rr.report, dagger: played.stats });
      await stageDone(stage);
    }
  };
  for (const b of policyPlan(cfg)) {
    if (b.kind === 'stage') {
      if (b.n > done) await sftStage(b.stage, b.n);
    } else if (done < b.first + b.dagger.rounds) await dagger(b.dagger, b.first, b.block);
  }

  // the critic: SFT with the hidden information, SWEET-RL pairs and Bradley–Terry adapter, value head (critic.ts)
  const critic = await criticPhase(cfg, { runtime: run.runtime, log }, { tokenizer: tok, config: model, weights: policy.weights });
  phases.push(...critic.phases);

  // held-out check of what ships: the 4-bit inference placement, on the inference engine (in-thread,
  // on the forge runtime's backend) and the rollout loop every other evaluation uses
  let rows: HeldOutRow[] = [];
  if (cfg.evalEpisodes > 0) {
    const engine = new PolicyEngine();
    try {
      await engine.init(run.runtime.info.kind);
      await engine.loadFrom('policy', { kind: 'model', model: shippedModel(policy.weights) }, { precision: 'quant4', adapterSlot: null });
      rows = await heldOut(
        engine,
        { mix: cfg.mix, episodes: cfg.evalEpisodes, seed: cfg.seed * 100_000, noise: cfg.noise, maxReplyTokens: cfg.maxReplyTokens },
        log,
      );
    } finally {
      await engine.dispose();
    }
  }

  const criticWeights = { ...critic.backbone, ...critic.head };
  const families = cfg.mix.map((m) => m.family as FamilyName);
  const common = {
    seed: cfg.seed,
    families,
    noise: cfg.noise,
    contextTokens: cfg.seqLen,
    maxReplyTokens: cfg.maxReplyTokens,
    tasks,
    chat: 'system = task prompt; agent/user turns; a sliding window keeps the prompt and the most recent turns within contextTokens',
  };
  const q4 = (w: ModelWeights, value: boolean): Record<string, Uint8Array> => {
    const params = paramSource(w, blocksQuant4);
    const heads = value ? { value: true } : undefined;
    return {
      'onnx/prefill_q4.onnx': buildGraph(model, { kind: 'prefill', params, heads }).bytes,
      'onnx/decode_q4.onnx': buildGraph(model, { kind: 'decode', params, heads }).bytes,
    };
  };
  const heldOutFigures = rows.map((r) => ({ family: r.family, agent: r.agent, episodes: r.episodes, successRate: r.successRate }));
  const manifest = {
    policy: await writeModelFolder(run.write, 'policy', {
      config: model,
      tokenizer: tok,
      weights: policy.weights,
      turnwise: { role: 'policy', ...common, ...keepAnswered, heldOut: heldOutFigures },
      files: q4(policy.weights, false),
    }),
    critic: await writeModelFolder(run.write, 'critic', {
      config: model,
      tokenizer: tok,
      weights: criticWeights,
      heads: { value: true },
      turnwise: { role: 'critic', ...common, hiddenMessage: 'one hidden message after the prompt: hiddenText(task.hidden)' },
      files: { ...q4(criticWeights, true), ...critic.files },
    }),
    ...(student && cfg.student !== undefined
      ? {
          student: await writeModelFolder(run.write, 'student', {
            config: model,
            tokenizer: tok,
            weights: student,
            turnwise: { role: 'policy', ...common, ...keepAnswered, student: { stage: cfg.student } },
            files: q4(student, false),
          }),
        }
      : {}),
  };
  const seconds = (performance.now() - t0) / 1000;
  const wallSeconds = Math.round((run.earlierSeconds ?? 0) + seconds);
  await writeManifest(run.write, manifest, { seed: cfg.seed, command: run.command, date: new Date().toISOString(), wallSeconds });
  log(
    `[forge] done in ${seconds.toFixed(0)} s; ${Object.values(manifest)
      .flatMap((m) => m.files)
      .reduce((a, f) => a + f.bytes, 0)} bytes written`,
  );
  return { config: cfg, model, parameters, vocabSize: tok.vocabSize, phases, heldOut: rows, manifest, seconds, critic: critic.report };
}
