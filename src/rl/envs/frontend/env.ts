// `frontend` (ColBench frontend, SWEET-RL arXiv 2503.15478, scaled): the collaborator sees a target
// page in our HTML subset; the agent sends drafts, the collaborator lists the main differences, and
// the final answer (`I WANT TO ANSWER:` + HTML) is scored by visual similarity of our deterministic
// renders (raster.ts); success at ≥ 0.9. Unsafe HTML is scored 0, never rendered or run.
import { BaseEnv, stepInfo, type Action } from '../base.ts';
import { optionsJson, resolveOptions, type OptionBound } from '../options.ts';
import { drawForSplit } from '../split.ts';
import type { JsonObject, StepReason, StepResult, Task, TaskSpec } from '../types.ts';
import { differences, describe, drawDesign, CHOICES } from './designs.ts';
import { HtmlError, parseHtml, toHtml, MAX_HTML_CHARS, type Design } from './html.ts';
import { scorer } from './raster.ts';
import { ANSWER_MARKER } from '../colbench.ts';

export interface FrontendOptions {
  [k: string]: number;
  /** Turn limit T. */
  maxTurns: number;
  /** Most differences the collaborator lists per reply. */
  maxDifferences: number;
  /** Similarity counted as success. */
  successAt: number;
  /** Simulated collaborator's error rate: half vague replies, half one wrong value. */
  noise: number;
  /** Share of tasks whose block texts are free words (designs.ts FREE_WORDS), not the family's 20. */
  freeWords: number;
  /** Share of tasks that are copy drills: one unstyled block whose text the prompt names (designs.ts drawDesign). */
  copyDrill: number;
  /** Most blocks in a copy drill (1: one p block; designs.ts drillDesign). */
  drillBlocks: number;
}
export const FRONTEND_DEFAULTS: FrontendOptions = { maxTurns: 8, maxDifferences: 4, successAt: 0.9, noise: 0, freeWords: 0, copyDrill: 0, drillBlocks: 1 };
/** The options as a task's spec names them: freeWords, copyDrill and drillBlocks only off their defaults, so tasks without them read as before the options existed. */
export function frontendOptionsJson(o: FrontendOptions): JsonObject {
  return optionsJson(o, { keys: ['freeWords', 'copyDrill', 'drillBlocks'], defaults: FRONTEND_DEFAULTS });
}

const BOUNDS: { [K in keyof FrontendOptions]: OptionBound } = {
  maxTurns: { min: 1, max: 40, integer: true },
  maxDifferences: { min: 1, max: 50, integer: true },
  successAt: { min: 0, max: 1, integer: false },
  noise: { min: 0, max: 1, integer: false },
  freeWords: { min: 0, max: 1, integer: false },
  copyDrill: { min: 0, max: 1, integer: false },
  drillBlocks: { min: 1, max: 3, integer: true },
};

/** The opening prompt's block list, e.g. `h1 "big sale", p "shop"`. */
export function blockList(d: Design): string {
  return d.blocks.map((b) => `${b.tag} "${b.text}"`).join(', ');
}

export class FrontendEnv extends BaseEnv {
  readonly family = 'frontend' as const;
  protected readonly maxMessageChars = MAX_HTML_CHARS + 1000;
  private opts: FrontendOptions = FRONTEND_DEFAULTS;
  private target: Design = { background: 'white', blocks: [] };
  private lastSimilarity = 0;
  private score: (candidate: Design) => number = () => 0;

  protected start(spec: TaskSpec): Task {
    this.opts = resolveOptions('frontend', FRONTEND_DEFAULTS, BOUNDS, spec.options);
    const { value, key } = drawForSplit(
      this.taskRng('task'),
      spec.split,
      (r) => drawDesign(r, this.opts.freeWords, this.opts.copyDrill, this.opts.drillBlocks),
      toHtml,
    );
    this.target = value;
    this.lastSimilarity = 0;
    this.score = scorer(value);
    return {
      spec: { family: 'frontend', split: spec.split, seed: spec.seed, options: frontendOptionsJson(this.opts) },
      prompt:
        `Build a web page with ${value.blocks.length} block${value.blocks.length === 1 ? '' : 's'}: ${blockList(value)}. ` +
        'Each turn send HTML using body, h1, p and div with style attributes (background, color, width, height, margin-left, margin-top, text-align, font-size), ' +
        `and I will list the main differences from my design. When it matches, reply with ${ANSWER_MARKER} and the HTML. You have ${this.opts.maxTurns} turns.`,
      hidden: { design: JSON.parse(JSON.stringify(value)) as JsonObject, html: key },
      maxTurns: this.opts.maxTurns,
      key,
    };
  }

  private turnsLeft(): string {
    return `Turns left: ${this.opts.maxTurns - this.turn}.`;
  }

  /** Parses a draft; on failure a finished step that explains why. */
  private read(html: string, final: boolean): { design: Design } | { result: StepResult } {
    try {
      return { design: parseHtml(html) };
    } catch (e) {
      const err = e as Error;
      const kind = err instanceof HtmlError ? err.code : 'syntax';
      const reason: StepReason = kind === 'unsafe' ? 'unsafe' : kind === 'too-long' ? 'too-long' : 'invalid-format';
      const fields: JsonObject = { similarity: 0, error: err.message };
      if (final)
        return { result: { observation: `Score 0: ${err.message}.`, reward: 0, done: true, info: stepInfo(reason, fields, reason === 'invalid-format') } };
      return {
        result: {
          observation: `I cannot use that HTML: ${err.message}. ${this.turnsLeft()}`,
          reward: 0,
          done: false,
          info: stepInfo(reason, fields, reason === 'invalid-format'),
        },
      };
    }
  }

  protected act(message: string): Action {
    const at = message.toUpperCase().indexOf(ANSWER_MARKER);
    if (at >= 0) {
      const read = this.read(message.slice(at + ANSWER_MARKER.length).replace(/```[a-z]*/gi, ''), true);
      if ('result' in read) return { kind: 'done', result: read.result };
      const sim = this.score(read.design);
      const success = sim >= this.opts.successAt;
      return {
        kind: 'done',
        result: { observation: `Your page scores ${sim.toFixed(3)}.`, reward: sim, done: true, info: stepInfo('answer', { similarity: sim }, false, success) },
      };
    }
    if (!message.includes('<')) {
      return {
        kind: 'reply',
        parsed: { kind: 'question' },
        suggestion: 'Please send HTML and I will compare it with my design.',
        finish: (reply) => ({ observation: `${reply} ${this.turnsLeft()}`, reward: 0, done: false, info: stepInfo('question', { similarity: null }) }),
      };
    }
    const read = this.read(message, false);
    if ('result' in read) return { kind: 'done', result: read.result };
    const sim = this.score(read.design);
    this.lastSimilarity = sim;
    const diffs = differences(this.target, read.design);
    return {
      kind: 'reply',
      parsed: { kind: 'proposal', similarity: sim, differences: diffs.length },
      suggestion: this.simulatedReply(read.design),
      finish: (reply) => ({
        observation: `${reply} ${this.turnsLeft()}`,
        reward: 0,
        done: false,
        info: stepInfo('proposal', { similarity: sim, differences: diffs.length }),
      }),
    };
  }

  private simulatedReply(draft: Design): string {
    const r = this.rng;
    const diffs = differences(this.target, draft);
    if (diffs.length && r.chance(this.opts.noise)) {
      if (r.chance(0.5)) return 'Some things look different.';
      const i = r.int(Math.min(diffs.length, this.opts.maxDifferences));
      const d = diffs[i];
      const wrong = typeof d.want === 'number' ? r.pick(CHOICES.width) : d.want;
      diffs[i] = { ...d, text: d.text.replace(`should be ${d.want},`, `should be ${wrong},`) };
    }
    return describe(diffs, this.opts.maxDifferences);
  }

  protected override onTurnLimit() {
    const sim = this.lastSimilarity;
    return {
      reward: sim,
      observation: `No turns left. Your last draft scores ${sim.toFixed(3)}.`,
      fields: { similarity: sim },
      success: sim >= this.opts.successAt,
    };
  }
}
