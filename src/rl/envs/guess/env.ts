// `guess`: twenty questions over the shipped attribute table (ArCHer's twenty-questions task, scaled
// per docs/design.md's calibration: 8 candidates named in the prompt, T = 5, and the collaborator
// restates the remaining candidates after every answer so the next move is visible in the last
// observation). Each question reports its exact information gain over the remaining candidates.
import { BaseEnv, stepInfo, type Action } from '../base.ts';
import { optionsJson, resolveOptions, type OptionBound } from '../options.ts';
import { drawForSplit } from '../split.ts';
import { EnvError, type JsonObject, type StepResult, type Task, type TaskSpec } from '../types.ts';
import type { Rng } from '../../util/rng.ts';
import { CANONICAL_PHRASINGS, choosePhrasing, FACT_SENTENCES, withFact, type GuessPhrasings } from '../phrasings.ts';
import { readReply } from './answers.ts';
import { filterRemaining, greedyDepth, informationGain } from './logic.ts';
import { ATTRIBUTES, ITEM_INDEX, ITEMS, signature, type AttributeKey } from './table.ts';

export interface GuessOptions {
  [k: string]: number;
  /** Candidates named in the prompt (the hidden item is one of them). */
  candidates: number;
  /** Turn limit T (questions plus the final guess). */
  maxTurns: number;
  /** Reward subtracted on every turn. */
  turnCost: number;
  /** Extra cost of a question that cannot split the remaining candidates or was asked before. */
  uselessCost: number;
  /** Simulated collaborator's error rate: half wrong answers, half "I don't know". */
  noise: number;
  /**
   * Animals the candidates are drawn from: 0 (default) draws from all of the table; N > 0 from a
   * fixed pool of N spread evenly over the table (guessPool), so that the tasks of both splits are
   * candidate sets of the same N animals and what is learned about them recurs on held-out tasks
   * (issue #45: the lesson's world). A task's spec names it only when it is not 0.
   */
  pool: number;
}

export const GUESS_DEFAULTS: GuessOptions = { candidates: 8, maxTurns: 5, turnCost: 0.01, uselessCost: 0.05, noise: 0, pool: 0 };
const BOUNDS: { [K in keyof GuessOptions]: OptionBound } = {
  candidates: { min: 2, max: 32, integer: true },
  maxTurns: { min: 1, max: 40, integer: true },
  turnCost: { min: 0, max: 1, integer: false },
  uselessCost: { min: 0, max: 1, integer: false },
  noise: { min: 0, max: 1, integer: false },
  pool: { min: 0, max: ITEMS.length, integer: true },
};

/**
 * The table indices of a pool of `size` animals (0: the whole table): every (ITEMS.length / size)-th
 * animal, i.e. ⌊i · ITEMS.length / size⌋ for i < size, so a pool is fixed by its size alone and
 * spreads over the table's classes (mammals, birds, fish, …) as the table orders them.
 */
export function guessPool(size: number): number[] {
  if (size === 0) return ITEMS.map((_, j) => j);
  return Array.from({ length: size }, (_, i) => Math.floor((i * ITEMS.length) / size));
}

/**
 * Checks the options that bounds alone cannot: a pool must hold `candidates` animals that the
 * table tells apart (distinct attribute signatures), else no task could be drawn from it.
 */
function checkPool(o: GuessOptions): void {
  if (o.pool === 0) return;
  const distinct = new Set(guessPool(o.pool).map(signature)).size;
  if (distinct < o.candidates) {
    throw new EnvError(
      `guess: option "pool" of ${o.pool} animals holds ${distinct} that the table tells apart, fewer than the ${o.candidates} candidates a task names (use pool 0 for all ${ITEMS.length}, or at least ${o.candidates})`,
    );
  }
}

/** The options as a task's spec names them: pool only when a pool is set, so tasks without one read as before it existed. */
export function guessOptionsJson(o: GuessOptions): JsonObject {
  return optionsJson(o, { keys: ['pool'], defaults: GUESS_DEFAULTS });
}

const { yes: YES, no: NO, unknown: UNKNOWN } = CANONICAL_PHRASINGS.guess;

/** The simulated collaborator's canonical phrasings of each answer; the first of each is what a person's Yes / No / Not sure button sends. */
export const GUESS_REPLIES: { readonly [K in 'yes' | 'no' | 'unknown']: readonly string[] } = CANONICAL_PHRASINGS.guess;
// The canonical replies skip the reader (~40 µs a reply; it reads them the same, see guessAnswers.test.ts).
const CANONICAL = new Map<string, 'yes' | 'no' | 'unknown'>([
  ...YES.map((p) => [p, 'yes'] as const),
  ...NO.map((p) => [p, 'no'] as const),
  ...UNKNOWN.map((p) => [p, 'unknown'] as const),
]);

type Parsed = { kind: 'guess'; item: number } | { kind: 'question'; attribute: number } | { kind: 'unknown-question' } | { kind: 'invalid' };

// Longest names first so "polar bear" wins over "bear"-like prefixes.
const NAMES_BY_LENGTH = [...ITEM_INDEX.keys()].sort((a, b) => b.length - a.length);
/** The words that read a question as one attribute when it is not a canonical question (exactly one must match). */
export const GUESS_KEYWORDS: readonly (readonly [RegExp, AttributeKey])[] = [
  [/\bmammals?\b/, 'mammal'],
  [/\bbirds?\b/, 'bird'],
  [/\bfish\b/, 'fish'],
  [/\breptiles?\b/, 'reptile'],
  [/\binsects?\b/, 'insect'],
  [/\bfly\b|\bflies\b|\bflying\b/, 'fly'],
  [/\bwater\b|\baquatic\b/, 'water'],
  [/\bfur\b|\bfurry\b/, 'fur'],
  [/\bmeat\b|\bcarnivor/, 'meat'],
  [/\bbigger\b|\blarger\b/, 'big'],
  [/\bsmaller\b/, 'small'],
  [/\bkept\b|\bdomestic|\bpets?\b/, 'pet'],
  [/\bnight\b|\bnocturnal\b/, 'night'],
  [/\beggs?\b/, 'eggs'],
  [/\bafrica/, 'africa'],
  [/\bstripe|\bspots?\b|\bspotted\b/, 'pattern'],
  [/\bfour legs\b|\b4 legs\b/, 'legs4'],
  [/\bvenom|\bpoison/, 'venom'],
  [/\bhorns?\b|\bantlers?\b/, 'horns'],
  [/\bcold\b|\barctic\b/, 'cold'],
];

/** Reads an agent message: "guess: cat" / "is it a mammal?" (exact canonical questions or one keyword). */
export function parseGuessAction(message: string): Parsed {
  const text = message.toLowerCase().replace(/\s+/g, ' ').trim();
  const g = text.indexOf('guess');
  if (g >= 0) {
    const after = text.slice(g + 5);
    for (const name of NAMES_BY_LENGTH) if (new RegExp(`(^|[^a-z])${name}([^a-z]|$)`).test(after)) return { kind: 'guess', item: ITEM_INDEX.get(name)! };
    return { kind: 'invalid' };
  }
  const exact = ATTRIBUTES.findIndex((a) => text.includes(a.question));
  if (exact >= 0) return { kind: 'question', attribute: exact };
  const hits = new Set(GUESS_KEYWORDS.filter(([re]) => re.test(text)).map(([, k]) => k));
  if (hits.size === 1) return { kind: 'question', attribute: ATTRIBUTES.findIndex((a) => a.key === [...hits][0]) };
  if (text.includes('?')) return { kind: 'unknown-question' };
  return { kind: 'invalid' };
}

/**
 * Reads a collaborator reply to a question about `attribute` (ATTRIBUTES index; omitted: restatements
 * are not read) as yes, no or unknown. A reply the reader is unsure of counts as unknown: the lab asks
 * a person again before it gets here (answers.ts), and the simulated collaborator's phrasings are
 * always read exactly.
 */
export function readAnswer(reply: string, attribute?: number): 'yes' | 'no' | 'unknown' {
  const canonical = CANONICAL.get(reply);
  if (canonical) return canonical;
  const r = readReply(reply, attribute);
  return r.kind === 'unsure' ? 'unknown' : r.kind;
}

function drawCandidates(rng: Rng, pool: readonly number[], k: number, maxQuestions: number): { candidates: number[]; item: number } | null {
  const picked: number[] = [];
  const seen = new Set<string>();
  for (const i of rng.shuffle(pool)) {
    const s = signature(i);
    if (seen.has(s)) continue;
    seen.add(s);
    picked.push(i);
    if (picked.length === k) break;
  }
  if (picked.length < k || greedyDepth(picked) > maxQuestions) return null;
  return { candidates: picked, item: rng.pick(picked) };
}

export class GuessEnv extends BaseEnv {
  readonly family = 'guess' as const;
  /** @param phrasings how the simulated collaborator words its answers (phrasings.ts; default canonical). */
  constructor(private readonly phrasings: GuessPhrasings = CANONICAL_PHRASINGS.guess) {
    super();
  }

  protected readonly maxMessageChars = 500;
  private opts: GuessOptions = GUESS_DEFAULTS;
  private item = 0;
  private candidates: number[] = [];
  private remaining: number[] = [];
  private asked = new Set<number>();

  protected start(spec: TaskSpec): Task {
    this.opts = resolveOptions('guess', GUESS_DEFAULTS, BOUNDS, spec.options);
    checkPool(this.opts);
    const pool = guessPool(this.opts.pool);
    const taskRng = this.taskRng('task');
    const { value, key } = drawForSplit(
      taskRng,
      spec.split,
      (r) => drawCandidates(r, pool, this.opts.candidates, this.opts.maxTurns - 1),
      (v) =>
        `${v.candidates
          .map((i) => ITEMS[i].name)
          .sort()
          .join(',')}|${ITEMS[v.item].name}`,
    );
    this.item = value.item;
    this.candidates = value.candidates;
    this.remaining = value.candidates.slice();
    this.asked = new Set();
    const names = this.candidates.map((i) => ITEMS[i].name);
    const facts: JsonObject = {};
    ATTRIBUTES.forEach((a, j) => (facts[a.key] = ITEMS[this.item].facts[j]));
    return {
      spec: { family: 'guess', split: spec.split, seed: spec.seed, options: guessOptionsJson(this.opts) },
      prompt:
        `Guess the animal I am thinking of. Candidates: ${names.join(', ')}. ` +
        `Each turn ask one yes or no question, like: does it have fur? Or guess, like: guess: ${names[0]}. ` +
        `A wrong guess ends the game. You have ${this.opts.maxTurns} turns.`,
      hidden: { item: ITEMS[this.item].name, candidates: names, facts },
      maxTurns: this.opts.maxTurns,
      key,
    };
  }

  private turnsLeft(): number {
    return this.opts.maxTurns - this.turn;
  }

  private status(): string {
    const names = this.remaining.map((i) => ITEMS[i].name);
    return `Remaining: ${names.length ? names.join(', ') : 'none'}. Turns left: ${this.turnsLeft()}.`;
  }

  /**
   * The environment state after a turn that did not end the game (GiGPO's anchor state,
   * credit/stepGroups.ts): what is left, what was asked and how many turns were taken, whatever
   * words the collaborator's answers used.
   */
  private anchor(): string {
    return `remaining ${this.remaining.join(',')}; asked ${[...this.asked].sort((a, b) => a - b).join(',')}; turn ${this.turn}`;
  }

  protected act(message: string): Action {
    const parsed = parseGuessAction(message);
    const cost = -this.opts.turnCost;
    if (parsed.kind === 'invalid') {
      return {
        kind: 'done',
        result: {
          observation: `Please ask a yes or no question or guess. ${this.status()}`,
          reward: cost + this.formatPenalty,
          done: false,
          info: stepInfo('invalid-format', { anchor: this.anchor() }, true),
        },
      };
    }
    if (parsed.kind === 'guess') {
      const correct = parsed.item === this.item;
      const answer = ITEMS[this.item].name;
      return {
        kind: 'done',
        result: {
          observation: correct ? `Correct! It is ${answer}.` : `Wrong. It was ${answer}.`,
          reward: (correct ? 1 : 0) + cost,
          done: true,
          info: stepInfo(correct ? 'solved' : 'failed', { guess: ITEMS[parsed.item].name, remainingBefore: this.remaining.length }, false, correct),
        },
      };
    }
    const attribute = parsed.kind === 'question' ? parsed.attribute : -1;
    const suggestion = this.simulatedReply(attribute);
    return {
      kind: 'reply',
      parsed: { kind: 'question', attribute: attribute >= 0 ? ATTRIBUTES[attribute].key : null },
      suggestion,
      finish: (reply) => this.finishQuestion(attribute, reply),
    };
  }

  private simulatedReply(attribute: number): string {
    const r = this.rng;
    const say = this.phrasings;
    if (attribute < 0) return choosePhrasing(r, say.unknown);
    let truth = ITEMS[this.item].facts[attribute];
    if (r.chance(this.opts.noise)) {
      if (r.chance(0.5)) return choosePhrasing(r, say.unknown);
      truth = !truth;
    }
    const reply = choosePhrasing(r, truth ? say.yes : say.no);
    if (!say.factRate || !r.chance(say.factRate)) return reply;
    // one true fact about another attribute, as a person adds one; dropped where it would change the reading
    const j = r.int(ATTRIBUTES.length - 1);
    const other = j >= attribute ? j + 1 : j;
    const withOne = withFact(reply, FACT_SENTENCES[ATTRIBUTES[other].key][ITEMS[this.item].facts[other] ? 0 : 1]);
    return readAnswer(withOne, attribute) === (truth ? 'yes' : 'no') ? withOne : reply;
  }

  private finishQuestion(attribute: number, reply: string): StepResult {
    const before = this.remaining.length;
    const gain = attribute >= 0 ? informationGain(this.remaining, attribute) : 0;
    const repeated = attribute >= 0 && this.asked.has(attribute);
    if (attribute >= 0) this.asked.add(attribute);
    const answer = attribute >= 0 ? readAnswer(reply, attribute) : 'unknown';
    if (answer !== 'unknown') this.remaining = filterRemaining(this.remaining, attribute, answer === 'yes');
    const useless = gain === 0;
    const after = this.remaining.length;
    const reward = -this.opts.turnCost - (useless || repeated ? this.opts.uselessCost : 0);
    const fields: JsonObject = {
      attribute: attribute >= 0 ? ATTRIBUTES[attribute].key : null,
      answer,
      informationGain: gain,
      realizedGain: after > 0 && before > 0 ? Math.log2(before / after) : 0,
      remainingBefore: before,
      remainingAfter: after,
      useless,
      repeated,
      anchor: this.anchor(),
    };
    const observation = this.turnsLeft() > 0 ? `${reply} ${this.status()}` : reply;
    return { observation, reward, done: false, info: stepInfo('question', fields) };
  }

  protected override onTurnLimit() {
    return { reward: 0, observation: `No turns left. It was ${ITEMS[this.item].name}.`, fields: {}, success: false };
  }
}
