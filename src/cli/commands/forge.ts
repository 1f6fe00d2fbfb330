// `turnwise forge` (also `npm run forge`): trains the default policy and critic from the task
// suite's noisy-expert dialogues and writes public/models/ (src/rl/forge/forge.ts). Options override
// the shipped configuration (src/rl/forge/presets.ts DEFAULT_FORGE); --smoke runs a seconds-long
// forge on a tiny model (for checking the pipeline, never for shipping).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { intOption, jsonOption, parseOptions, report, UsageError, type Command } from '../command.ts';
import { modelsDir } from '../paths.ts';
import { policyStageCount, type FinishStep, type ForgeConfig, type RefineStage } from '../../rl/forge/config.ts';
import { DEFAULT_FORGE, FIRST_GENERATION_FORGE, FOURTH_GENERATION_FORGE, SIX_FAMILY_FORGE, SMOKE_FORGE, WIDE_MIX } from '../../rl/forge/presets.ts';
import { runForge } from '../../rl/forge/forge.ts';
import { DEFAULT_SWEET_CRITIC, type SweetCriticConfig } from '../../rl/forge/criticConfig.ts';
import { forgeCriticOnly } from '../../rl/forge/criticOnly.ts';
import { heldOutTable } from '../../rl/forge/heldout.ts';
import { nodeReader, nodeWriter } from '../../rl/model/folder/nodeIo.ts';
import { loadModel } from '../../rl/model/folder/folder.ts';
import { OrtRuntime } from '../../rl/runtime/ort.ts';
import { clearProgress, loadStudent, progressCheckpoint, readProgress } from '../forgeProgress.ts';

/**
 * `--preset` names: third is the default (the third generation), fourth its candidate successor, six the
 * second generation, first and wide the first generation's (wide with its wider mixture, below).
 */
const PRESETS: Record<string, ForgeConfig> = {
  first: FIRST_GENERATION_FORGE,
  wide: FIRST_GENERATION_FORGE,
  six: SIX_FAMILY_FORGE,
  third: DEFAULT_FORGE,
  fourth: FOURTH_GENERATION_FORGE,
};

export const forge: Command = {
  name: 'forge',
  summary: 'train the default policy and critic (SFT on noisy-expert dialogues) and write public/models/',
  usage: [
    'Usage: npx turnwise forge [--out DIR] [--seed S] [--steps N] [--critic-steps N] [--value-steps N]',
    '                          [--eval-episodes N] [--batch B] [--lr X] [--minutes M] [--preset first|wide|six|third|fourth] [--dagger JSON] [--smoke] [--json]',
    "--init DIR continues from DIR's policy (its tokenizer and weights); with --stages-done K that policy is the result of the",
    'first K policy stages of the same configuration (a forge written after stage K), so the rest of the forge writes what the',
    'whole forge would; --mix JSON replaces the family mixture;',
    '--refine JSON replaces the policy stages before the DAgger rounds ([] for none), e.g. \'[{"steps":1000,"lr":0.001,"weights":{"backend":0.5,"bandit":0.5}}]\'',
    '(a stage\'s "seqLen" trains it on shorter rows than the context, its "expertShare" sets the noise-free teacher\'s share,',
    'its "copyWeight" weighs the reply tokens the prompt or a collaborator turn holds that many times, its "augment" replaces the',
    'mixture\'s augmentation for the families it names, e.g. {"backend":{"freeValues":0.5}} or {"backend":{}} for none);',
    '--after-dagger JSON replaces the policy stages after the DAgger rounds, in the same form ([] for none);',
    '--final-dagger JSON replaces the DAgger rounds after those (null for none), in --dagger\'s form plus "weights", the families',
    'the policy plays, e.g. \'{"rounds":4,"episodes":800,"steps":100,"lr":0.0005,"share":0.8,"expertShare":1,"weights":{"guess":1}}\';',
    "--finish JSON replaces the policy steps after the final DAgger rounds ([] for none): stages in --refine's form, or DAgger",
    'rounds in --final-dagger\'s form as {"dagger":{…}} (the third preset ends with four on guess and backend, then a stage);',
    '--student K also writes stage K\'s policy as the model "student" (a lesson\'s less-trained start; not inside DAgger rounds);',
    "--first-stage JSON sets the first stage's shares and rows,",
    'e.g. \'{"weights":{"guess":0.5,"backend":0.5},"seqLen":256}\' (null: the mixture at the full context);',
    '--arch JSON sets the model\'s size for a forge from scratch, e.g. \'{"dModel":192,"nLayers":4,"nHeads":4,"dFf":512}\'',
    '(any of the four; widths multiples of 32; measuring what d and layers buy, docs/experiments/2026-12-03-forge-six-f-dagger-guess.md).',
    '--minutes caps the policy SFT phase (the result then depends on the machine); --preset first is the first generation',
    '(guess, backend, bandit at context 256), --preset wide that with frozenlake and sokoban; --preset six is the second',
    'generation (SIX_FAMILY_FORGE: all six families, context 512, expert data, a curriculum,',
    'DAgger rounds, a noise-free finish, DAgger rounds on guess and backend, stages on the long games); --preset third is the default,',
    "the third generation (THIRD_GENERATION_FORGE: longer short-family stages, backend's free values from the free-values stage on, frontend's drills, frozenlake's board restated around the player and its stage, guess's lesson's student at stage 19);",
    '--preset fourth is its candidate successor (FOURTH_GENERATION_FORGE: the third with a 2,000-step sokoban stage after the student, before its last DAgger rounds and copy stage; not yet shipped);',
    '--dagger JSON replaces its first DAgger rounds (null for none), e.g.',
    '\'{"rounds":2,"episodes":600,"steps":100,"lr":0.0005,"share":0.5}\'.',
    '--critic-only --from DIR runs only the critic phase (SFT with the hidden information, SWEET-RL pairs and Bradley–Terry',
    "adapter, value head; src/rl/forge/critic.ts) on DIR's policy and writes DIR's policy unchanged plus the new critic to --out;",
    '--sweet-critic JSON overrides fields of the critic phase, e.g. \'{"tasks":100,"epochs":2}\' (null: no SWEET-RL phase).',
    "--keep-answered: the policy's windows (its training segments, then at play) also keep the agent turn their first reply",
    'answers, e.g. the frontend draft a list of differences is about (config.json turnwise.keepAnswered; off in the presets);',
    '--spaced-css: frontend\'s teachers and DAgger labels write their CSS "background: red; width: 40px", so a value the collaborator',
    'names is the same token in the draft (off in the presets).',
    'After every policy stage it may resume after, the forge keeps that policy and progress.json in OUT/forge-progress/ (removed',
    "when it finishes); --resume OUT goes on from there with the interrupted forge's own configuration and command, and the",
    "manifest's wallSeconds adds the runs' wall times.",
    '',
    `Defaults (DEFAULT_FORGE): --out public/models, --seed ${DEFAULT_FORGE.seed}, --steps ${DEFAULT_FORGE.steps}, --critic-steps ${DEFAULT_FORGE.criticSteps},`,
    `--value-steps ${DEFAULT_FORGE.valueSteps}, --eval-episodes ${DEFAULT_FORGE.evalEpisodes}, --batch ${DEFAULT_FORGE.batch}, --lr ${DEFAULT_FORGE.lr}.`,
    'Prints a progress line every few steps; writes forge-report.json beside manifest.json.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      out: { type: 'string' },
      seed: { type: 'string' },
      steps: { type: 'string' },
      'critic-steps': { type: 'string' },
      'value-steps': { type: 'string' },
      'eval-episodes': { type: 'string' },
      batch: { type: 'string' },
      lr: { type: 'string' },
      smoke: { type: 'boolean' },
      init: { type: 'string' },
      mix: { type: 'string' },
      refine: { type: 'string' },
      'first-stage': { type: 'string' },
      'after-dagger': { type: 'string' },
      'final-dagger': { type: 'string' },
      finish: { type: 'string' },
      'stages-done': { type: 'string' },
      student: { type: 'string' },
      arch: { type: 'string' },
      minutes: { type: 'string' },
      preset: { type: 'string' },
      dagger: { type: 'string' },
      'critic-only': { type: 'boolean' },
      from: { type: 'string' },
      'sweet-critic': { type: 'string' },
      resume: { type: 'string' },
      'keep-answered': { type: 'boolean' },
      'spaced-css': { type: 'boolean' },
    });
    const names = Object.keys(PRESETS);
    if (values.preset !== undefined && !Object.hasOwn(PRESETS, values.preset))
      throw new UsageError(`--preset must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got "${values.preset}"`);
    const base = values.smoke ? SMOKE_FORGE : PRESETS[values.preset ?? 'third'];
    const lr = values.lr === undefined ? base.lr : Number(values.lr);
    if (!(lr > 0 && lr < 1)) throw new UsageError(`--lr must be in (0, 1), got "${values.lr}"`);
    const cfg: ForgeConfig = {
      ...base,
      seed: intOption(values.seed, 'seed', base.seed, 0, 2 ** 31),
      steps: intOption(values.steps, 'steps', base.steps, 1),
      criticSteps: intOption(values['critic-steps'], 'critic-steps', base.criticSteps, 0),
      valueSteps: intOption(values['value-steps'], 'value-steps', base.valueSteps, 0),
      evalEpisodes: intOption(values['eval-episodes'], 'eval-episodes', base.evalEpisodes, 0),
      batch: intOption(values.batch, 'batch', base.batch, 1, 1024),
      lr,
      ...(values.minutes !== undefined ? { policySeconds: 60 * intOption(values.minutes, 'minutes', 0, 1, 600) } : {}),
      ...(values.preset === 'wide' ? { mix: WIDE_MIX } : {}),
      ...(values['keep-answered'] ? { keepAnswered: true } : {}),
      ...(values['spaced-css'] ? { spacedCss: true } : {}),
    };
    if (values.arch !== undefined) {
      if (values.init !== undefined) throw new UsageError('--arch sizes a new model; --init continues a policy of its own size');
      Object.assign(cfg, archOption(values.arch));
    }
    if (values.mix !== undefined) cfg.mix = jsonOption(values.mix, 'mix', 'JSON: [{"family":"guess","weight":1,"options":{...}}, …]') as ForgeConfig['mix'];
    if (values.dagger !== undefined)
      cfg.dagger = jsonOption(values.dagger, 'dagger', 'JSON: {"rounds":N,"episodes":N,"steps":N,"lr":X,"share":X} or null') as ForgeConfig['dagger'];
    if (values['final-dagger'] !== undefined)
      cfg.finalDagger = jsonOption(
        values['final-dagger'],
        'final-dagger',
        'JSON: {"rounds":N,"episodes":N,"steps":N,"lr":X,"share":X,"weights":{"guess":1}} or null',
      ) as ForgeConfig['finalDagger'];
    if (values.refine !== undefined) {
      cfg.refine = jsonOption(values.refine, 'refine', 'JSON: [{"steps":N,"lr":X,"weights":{"backend":0.5,…}}, …]') as ForgeConfig['refine'];
      if (!Array.isArray(cfg.refine)) throw new UsageError('--refine must be a JSON array of stages');
    }
    if (values['after-dagger'] !== undefined) {
      cfg.afterDagger = jsonOption(
        values['after-dagger'],
        'after-dagger',
        'JSON: [{"steps":N,"lr":X,"weights":{"guess":0.5,…},"expertShare":1}, …]',
      ) as RefineStage[];
      if (!Array.isArray(cfg.afterDagger)) throw new UsageError('--after-dagger must be a JSON array of stages');
    }
    if (values.finish !== undefined) {
      cfg.finish = jsonOption(
        values.finish,
        'finish',
        'JSON: [{"steps":N,"lr":X,"weights":{"frozenlake":0.6,…},"expertShare":1}, {"dagger":{"rounds":N,…}}, …]',
      ) as FinishStep[];
      if (!Array.isArray(cfg.finish)) throw new UsageError('--finish must be a JSON array of stages and DAgger rounds');
    }
    if (values.student !== undefined) cfg.student = intOption(values.student, 'student', 0, 1, policyStageCount(cfg));
    if (values['first-stage'] !== undefined) {
      const first = jsonOption(values['first-stage'], 'first-stage', 'JSON: {"weights":{"guess":0.5,…},"seqLen":256} or null') as
        ForgeConfig['firstStage'] | null;
      if (first === null) delete cfg.firstStage;
      else cfg.firstStage = first;
    }
    // --critic-only always runs the SWEET-RL critic phase (DEFAULT_FORGE's shipped critic has none)
    if (values['critic-only'] && !cfg.sweetCritic) cfg.sweetCritic = DEFAULT_SWEET_CRITIC;
    if (values['sweet-critic'] !== undefined) {
      const over = jsonOption(values['sweet-critic'], 'sweet-critic', 'JSON: {"tasks":N,"epochs":E,…} or null') as Partial<SweetCriticConfig> | null;
      // null: the first generation's critic (SFT and a value head on scripted play, no SWEET-RL adapter)
      cfg.sweetCritic = over === null ? null : { ...(cfg.sweetCritic ?? DEFAULT_SWEET_CRITIC), ...over };
    }
    if (values['critic-only']) {
      if (values.from === undefined) throw new UsageError('--critic-only needs --from DIR (the folder whose policy the critic judges)');
      const out = values.out ?? modelsDir();
      const json = values.json === true;
      const command = `npx turnwise forge ${argv.filter((a) => a !== '--json').join(' ')}`.trim();
      const policy = await loadModel(nodeReader(values.from), 'policy');
      const runtime = await OrtRuntime.create('node');
      const result = await forgeCriticOnly(cfg, policy, {
        write: nodeWriter(out),
        runtime,
        log: (l) => (json ? process.stderr : process.stdout).write(`${l}\n`),
        command,
      });
      await writeFile(join(out, 'critic-report.json'), `${JSON.stringify({ command, ...result }, null, 2)}\n`);
      report(
        json,
        result,
        () =>
          `forge --critic-only: ${result.seconds.toFixed(0)} s; held-out pair accuracy by epoch ${(result.critic?.epochs ?? []).map((e) => e.heldOutAccuracy.toFixed(3)).join(', ')} (epoch ${result.critic?.keptEpoch ?? '—'} kept); wrote ${out}`,
      );
      return 0;
    }
    if (values['stages-done'] !== undefined && values.init === undefined)
      throw new UsageError('--stages-done needs --init DIR (the policy those stages wrote)');
    const json = values.json === true;
    const resume = values.resume === undefined ? null : await resumeRun(values.resume, argv);
    const run = resume ?? {
      out: values.out ?? modelsDir(),
      command: `npx turnwise forge ${argv.filter((a) => a !== '--json').join(' ')}`.trim(),
      config: cfg,
      start:
        values.init === undefined
          ? undefined
          : {
              ...(await loadModel(nodeReader(values.init), 'policy')),
              stagesDone: intOption(values['stages-done'], 'stages-done', 0, 0, policyStageCount(cfg)),
              // a student the --init folder ships, for a forge that continues past the student's stage
              ...(await loadStudent(values.init).then((student) => (student ? { student } : {}))),
            },
      seconds: 0,
      phases: [],
    };
    const { out, command } = run;
    const runtime = await OrtRuntime.create('node');
    const resumedFrom = values.init === undefined ? [] : await earlierRuns(values.init);
    const result = await runForge(run.config, {
      write: nodeWriter(out),
      runtime,
      log: (l) => (json ? process.stderr : process.stdout).write(`${l}\n`),
      command,
      ...(run.start ? { start: run.start } : {}),
      checkpoint: progressCheckpoint(out, { command, config: run.config, seconds: run.seconds, phases: run.phases }),
      earlierSeconds: run.seconds,
    });
    const whole = { ...result, phases: [...run.phases, ...result.phases], wallSeconds: Math.round(run.seconds + result.seconds) };
    await writeFile(join(out, 'forge-report.json'), `${JSON.stringify({ command, ...whole, ...(resumedFrom.length ? { resumedFrom } : {}) }, null, 2)}\n`);
    await clearProgress(out);
    report(json, whole, () =>
      [
        `forge: ${result.parameters} parameters, vocabulary ${result.vocabSize}, ${whole.wallSeconds} s${resume ? ` (resumed after stage ${resume.start.stagesDone})` : ''}; wrote ${out}`,
        '',
        heldOutTable(result.heldOut),
      ].join('\n'),
    );
    return 0;
  },
};

const ARCH_FIELDS = ['dModel', 'nLayers', 'nHeads', 'dFf'] as const;

/** --arch: the model-size fields of ForgeConfig (validateForgeConfig checks their values). */
function archOption(text: string): Partial<Pick<ForgeConfig, (typeof ARCH_FIELDS)[number]>> {
  const arch = jsonOption(text, 'arch', 'JSON: {"dModel":192,"nLayers":4,"nHeads":4,"dFf":512}');
  if (arch === null || typeof arch !== 'object' || Array.isArray(arch)) throw new UsageError('--arch must be a JSON object');
  for (const key of Object.keys(arch)) {
    if (!(ARCH_FIELDS as readonly string[]).includes(key)) throw new UsageError(`--arch: unknown field "${key}" (expected ${ARCH_FIELDS.join(', ')})`);
  }
  return arch as Partial<Pick<ForgeConfig, (typeof ARCH_FIELDS)[number]>>;
}

/** `--resume DIR`: the interrupted forge's folder, command, configuration, last checkpoint, seconds and phases; no other option may change them. */
async function resumeRun(dir: string, argv: string[]) {
  const others = argv.filter((a) => a.startsWith('--') && a !== '--resume' && a !== '--json');
  if (others.length) throw new UsageError(`--resume goes on with the interrupted forge's own configuration; drop ${others.join(', ')}`);
  const { progress, policy, student } = await readProgress(dir);
  return { out: dir, ...progress, start: { ...policy, stagesDone: progress.stagesDone, ...(student ? { student } : {}) } };
}

/** A resumed forge keeps what the runs before it did: the --init folder's report and its own chain, oldest first. */
async function earlierRuns(dir: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(join(dir, 'forge-report.json'), 'utf8');
  } catch {
    return []; // a folder without a report (e.g. a hand-made policy): nothing to keep
  }
  const prev = JSON.parse(text) as { command?: string; phases?: unknown; heldOut?: unknown; seconds?: number; resumedFrom?: unknown[] };
  return [...(prev.resumedFrom ?? []), { command: prev.command, phases: prev.phases, heldOut: prev.heldOut, seconds: prev.seconds }];
}
