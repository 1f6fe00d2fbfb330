// RAGEN's two-armed bandit: two arms with symbolic names, one safe (always pays 0.15) and one risky
// (pays 1 with probability 0.25, so 0.25 in expectation). One turn; the agent must infer from the
// names which arm is which. Success = choosing the arm with the higher expected reward.
import type { FamilyAgents } from '../agent.ts';
import { BaseEnv, stepInfo, type Action } from '../base.ts';
import { optionsJson, resolveOptions, type OptionBound } from '../options.ts';
import { drawForSplit } from '../split.ts';
import type { Task, TaskSpec } from '../types.ts';
import { readChoice } from './common.ts';

export const SAFE_NAMES = ['vault', 'anchor', 'shield', 'harbor', 'bank', 'turtle', 'oak', 'bedrock', 'fortress', 'lighthouse'] as const;
export const RISKY_NAMES = ['dice', 'lottery', 'storm', 'gamble', 'comet', 'volcano', 'roulette', 'jackpot', 'tornado', 'meteor'] as const;

export interface BanditOptions {
  [k: string]: number;
  /** Turn limit (RAGEN's bandit is one pull). */
  maxTurns: number;
  /** The safe arm's fixed payout. */
  safeReward: number;
  /** The risky arm's payout probability (it pays 1). */
  riskyProb: number;
}
export const BANDIT_DEFAULTS: BanditOptions = { maxTurns: 1, safeReward: 0.15, riskyProb: 0.25 };
const BOUNDS: { [K in keyof BanditOptions]: OptionBound } = {
  maxTurns: { min: 1, max: 10, integer: true },
  safeReward: { min: 0, max: 1, integer: false },
  riskyProb: { min: 0, max: 1, integer: false },
};

const ALL_NAMES = [...SAFE_NAMES, ...RISKY_NAMES];

export class BanditEnv extends BaseEnv {
  readonly family = 'bandit' as const;
  protected readonly maxMessageChars = 2000;
  private opts: BanditOptions = BANDIT_DEFAULTS;
  private arms: string[] = [];
  private risky = '';

  protected start(spec: TaskSpec): Task {
    this.opts = resolveOptions('bandit', BANDIT_DEFAULTS, BOUNDS, spec.options);
    const { value, key } = drawForSplit(
      this.taskRng('task'),
      spec.split,
      (r) => {
        const safe = r.pick(SAFE_NAMES);
        const risky = r.pick(RISKY_NAMES);
        return { arms: r.chance(0.5) ? [safe, risky] : [risky, safe], risky: risky as string };
      },
      (v) => v.arms.join('|'),
    );
    this.arms = value.arms;
    this.risky = value.risky;
    const [a, b] = this.arms;
    return {
      spec: { family: 'bandit', split: spec.split, seed: spec.seed, options: optionsJson(this.opts) },
      prompt:
        `You are playing a bandit game. Goal: maximize your reward by choosing which arm to pull. ` +
        `There are 2 arms, named ${a} and ${b}. Each arm has its own reward distribution, related to its name. ` +
        `Which arm is more likely to give higher rewards on average? Answer like <answer>${a}</answer> or <answer>${b}</answer>.`,
      hidden: {
        arms: this.arms,
        risky: this.risky,
        safe: this.arms.find((x) => x !== this.risky)!,
        safeReward: this.opts.safeReward,
        riskyProb: this.opts.riskyProb,
      },
      maxTurns: this.opts.maxTurns,
      key,
    };
  }

  protected act(message: string): Action {
    const arm = readChoice(message, this.arms);
    if (arm === null) {
      return {
        kind: 'done',
        result: {
          observation: `Invalid action. Choose ${this.arms[0]} or ${this.arms[1]}.`,
          reward: this.formatPenalty,
          done: false,
          info: stepInfo('invalid-format', { expectedReward: this.formatPenalty }, true),
        },
      };
    }
    const risky = arm === this.risky;
    const reward = risky ? (this.rng.chance(this.opts.riskyProb) ? 1 : 0) : this.opts.safeReward;
    const expected = risky ? this.opts.riskyProb : this.opts.safeReward;
    const better = expected >= (risky ? this.opts.safeReward : this.opts.riskyProb);
    return {
      kind: 'done',
      result: {
        observation: `You pulled ${arm} and got reward ${reward}.`,
        reward,
        done: true,
        info: stepInfo('move', { arm, risky, expectedReward: expected }, false, better),
      },
    };
  }
}

/** The two arm names in the prompt, in order. */
function armsOf(prompt: string): string[] {
  const m = /named (\w+) and (\w+)\./.exec(prompt);
  return m ? [m[1], m[2]] : [ALL_NAMES[0], ALL_NAMES[1]];
}

const isRisky = (name: string) => (RISKY_NAMES as readonly string[]).includes(name);

export const banditAgents: FamilyAgents = {
  expert: (d) => `<answer>${armsOf(d[0].content).find(isRisky) ?? armsOf(d[0].content)[0]}</answer>`,
  mistake: (d) => `<answer>${armsOf(d[0].content).find((n) => !isRisky(n)) ?? armsOf(d[0].content)[0]}</answer>`,
  random: (d, rng) => `<answer>${rng.pick(armsOf(d[0].content))}</answer>`,
};
