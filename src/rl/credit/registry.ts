// The estimator registry the UI and CLI list: name, label, citation, parameters (defaults, ranges,
// one-line descriptions), which inputs each needs, and which past credits a new turn can change;
// plus one entry point for batch credit and one for incremental credit by name.

import { archerCredit, IncrementalArcher } from './archer.ts';
import { BI_LEVEL_GAE_DEFAULTS, biLevelGaeCredit, IncrementalBiLevelGae, type BiLevelGaeParams } from './biLevelGae.ts';
import { CreditError } from './errors.ts';
import { GAE_DEFAULTS, gaeCredit, IncrementalGae, type GaeParams } from './gae.ts';
import { GROUP_ADVANTAGE_DEFAULTS, groupCredit, type GroupAdvantageParams } from './groupAdvantage.ts';
import { IncrementalMonteCarlo, MONTE_CARLO_DEFAULTS, monteCarloCredit, type MonteCarloParams } from './monteCarlo.ts';
import { IncrementalSweet, SWEET_CREDIT_DEFAULTS, sweetCredit, type SweetParams } from './sweetAdvantage.ts';
import type { CreditInputName, CreditParams, CreditResult, EpisodeCreditInput, EstimatorName, IncrementalCredit, IncrementalStart } from './types.ts';

/** A numeric parameter. */
export interface NumberParamSpec {
  type: 'number';
  name: string;
  label: string;
  description: string;
  default: number;
  min: number;
  max: number;
}

/** An on/off parameter. */
export interface BooleanParamSpec {
  type: 'boolean';
  name: string;
  label: string;
  description: string;
  default: boolean;
}

type ParamSpec = NumberParamSpec | BooleanParamSpec;

/** One estimator as the UI lists it. */
export interface EstimatorSpec {
  name: EstimatorName;
  /** Short label for a column header. */
  label: string;
  /** Paper and equation. */
  source: string;
  /** 'episode': computed per episode; 'group': needs the K episodes of a task together. */
  scope: 'episode' | 'group';
  params: readonly ParamSpec[];
  /** Inputs it reads; credit fails with CreditError 'missing-input' without them. */
  needs: readonly CreditInputName[];
  /** Which credits a new turn can change: all past turns, none, or every episode in the group. */
  changesPast: 'all' | 'none' | 'group';
  /** True when it also gives per-token credit. */
  perToken: boolean;
}

const gamma = (d: number, what: string): NumberParamSpec => ({
  type: 'number',
  name: 'gamma',
  label: 'γ',
  description: `discount per ${what}`,
  default: d,
  min: 0,
  max: 1,
});

export const ESTIMATORS: readonly EstimatorSpec[] = [
  {
    name: 'mc',
    label: 'MC return',
    source: 'Monte-Carlo return G_t = Σ γ^k r_{t+k} (Sutton & Barto, eq. 3.8)',
    scope: 'episode',
    params: [gamma(MONTE_CARLO_DEFAULTS.gamma, 'turn')],
    needs: ['rewards'],
    changesPast: 'all',
    perToken: false,
  },
  {
    name: 'gae',
    label: 'GAE (turn)',
    source: 'GAE over turns with the value critic (Schulman et al. 2016, arXiv 1506.02438, eq. 16)',
    scope: 'episode',
    params: [
      gamma(GAE_DEFAULTS.gamma, 'turn'),
      { type: 'number', name: 'lambda', label: 'λ', description: '0 = one-step TD, 1 = MC return minus V', default: GAE_DEFAULTS.lambda, min: 0, max: 1 },
    ],
    needs: ['rewards', 'values'],
    changesPast: 'all',
    perToken: false,
  },
  {
    name: 'bilevel-gae',
    label: 'Bi-level GAE',
    source: 'RAGEN bi-level GAE: turns, then tokens within a turn (Wang et al. 2025, arXiv 2504.20073)',
    scope: 'episode',
    params: [
      gamma(BI_LEVEL_GAE_DEFAULTS.gamma, 'token'),
      { type: 'number', name: 'lambda', label: 'λ', description: 'token-level GAE λ', default: BI_LEVEL_GAE_DEFAULTS.lambda, min: 0, max: 1 },
      {
        type: 'number',
        name: 'turnGamma',
        label: 'γ_turn',
        description: 'discount per turn (RAGEN high_level_gamma)',
        default: BI_LEVEL_GAE_DEFAULTS.turnGamma,
        min: 0,
        max: 1,
      },
      { type: 'number', name: 'turnLambda', label: 'λ_turn', description: 'turn-level GAE λ', default: BI_LEVEL_GAE_DEFAULTS.turnLambda, min: 0, max: 1 },
    ],
    needs: ['rewards', 'tokenOffsets', 'tokenValues'],
    changesPast: 'all',
    perToken: true,
  },
  {
    name: 'grpo',
    label: 'GRPO',
    source: 'group-normalised return (R − mean)/std over the K episodes of a task (Shao et al. 2024, arXiv 2402.03300; RAGEN StarPO)',
    scope: 'group',
    params: [
      {
        type: 'boolean',
        name: 'divideByStd',
        label: '÷ std',
        description: 'divide by the group std (off: subtract the mean only)',
        default: GROUP_ADVANTAGE_DEFAULTS.divideByStd,
      },
      {
        type: 'boolean',
        name: 'unbiased',
        label: 'n−1 std',
        description: 'unbiased (n−1) standard deviation, as torch.std',
        default: GROUP_ADVANTAGE_DEFAULTS.unbiased,
      },
      {
        type: 'number',
        name: 'epsilon',
        label: 'ε',
        description: 'added to the std before dividing',
        default: GROUP_ADVANTAGE_DEFAULTS.epsilon,
        min: 0,
        max: 1,
      },
    ],
    needs: ['rewards', 'group'],
    changesPast: 'group',
    perToken: false,
  },
  {
    name: 'sweet',
    label: 'SWEET-RL',
    source:
      'asymmetric-critic advantage β·mean log π_critic/π_ref, π_ref the critic’s base, both seeing the hidden info (Zhou et al. 2025, arXiv 2503.15478, §4)',
    scope: 'episode',
    params: [
      {
        type: 'number',
        name: 'beta',
        label: 'β',
        description: 'scale of the critic/reference log-ratio',
        default: SWEET_CREDIT_DEFAULTS.beta,
        min: 1e-9,
        max: 1e9,
      },
    ],
    needs: ['tokenOffsets', 'criticLogprobs', 'refLogprobs'],
    changesPast: 'none',
    perToken: true,
  },
  {
    name: 'archer',
    label: 'ArCHer Q − V',
    source: 'turn-level Q(s,a) − V(s) of a TD-trained critic (Zhou et al. 2024, arXiv 2402.19446)',
    scope: 'episode',
    params: [],
    needs: ['q', 'values'],
    changesPast: 'none',
    perToken: false,
  },
];

/** The registry entry for `name` (throws CreditError 'bad-param' for an unknown name). */
export function estimatorSpec(name: string): EstimatorSpec {
  const spec = ESTIMATORS.find((e) => e.name === name);
  if (!spec) throw new CreditError('bad-param', `unknown estimator "${name}"; known: ${ESTIMATORS.map((e) => e.name).join(', ')}`);
  return spec;
}

/** Checks `params` names and types against the spec and fills defaults. */
export function resolveParams(name: EstimatorName, params: CreditParams = {}): CreditParams {
  const spec = estimatorSpec(name);
  const out: CreditParams = {};
  for (const p of spec.params) out[p.name] = p.default;
  for (const [key, value] of Object.entries(params)) {
    const p = spec.params.find((q) => q.name === key);
    if (!p) throw new CreditError('bad-param', `${name} has no parameter "${key}"; it takes ${spec.params.map((q) => q.name).join(', ') || 'none'}`);
    if (typeof value !== p.type) throw new CreditError('bad-param', `${name}.${key} must be a ${p.type}, got ${typeof value}`);
    out[key] = value;
  }
  return out;
}

function num(p: CreditParams, k: string): number {
  return p[k] as number;
}

/** Batch credit by name for many episodes (GRPO groups them by `group`); result i belongs to episodes[i]. */
export function computeCredit(name: EstimatorName, episodes: readonly EpisodeCreditInput[], params: CreditParams = {}): CreditResult[] {
  const p = resolveParams(name, params);
  switch (name) {
    case 'mc':
      return episodes.map((e) => monteCarloCredit(e, { gamma: num(p, 'gamma') } satisfies MonteCarloParams));
    case 'gae':
      return episodes.map((e) => gaeCredit(e, { gamma: num(p, 'gamma'), lambda: num(p, 'lambda') } satisfies GaeParams));
    case 'bilevel-gae': {
      const q: BiLevelGaeParams = { gamma: num(p, 'gamma'), lambda: num(p, 'lambda'), turnGamma: num(p, 'turnGamma'), turnLambda: num(p, 'turnLambda') };
      return episodes.map((e) => biLevelGaeCredit(e, q));
    }
    case 'grpo':
      return groupCredit(episodes, {
        divideByStd: p.divideByStd as boolean,
        unbiased: p.unbiased as boolean,
        epsilon: num(p, 'epsilon'),
      } satisfies GroupAdvantageParams);
    case 'sweet':
      return episodes.map((e) => sweetCredit(e, { beta: num(p, 'beta') } satisfies SweetParams));
    case 'archer':
      return episodes.map((e) => archerCredit(e));
  }
}

/**
 * An incremental estimator by name, for one episode. GRPO is group-scoped: use
 * `new IncrementalGroupAdvantage(K, params) with push(i, turn) and result(i)` instead (this throws 'bad-param' for it).
 */
export function createIncremental(name: EstimatorName, params: CreditParams = {}, start: IncrementalStart = {}): IncrementalCredit {
  const p = resolveParams(name, params);
  switch (name) {
    case 'mc':
      return new IncrementalMonteCarlo({ gamma: num(p, 'gamma') });
    case 'gae':
      return new IncrementalGae({ gamma: num(p, 'gamma'), lambda: num(p, 'lambda') }, start);
    case 'bilevel-gae':
      return new IncrementalBiLevelGae({ gamma: num(p, 'gamma'), lambda: num(p, 'lambda'), turnGamma: num(p, 'turnGamma'), turnLambda: num(p, 'turnLambda') });
    case 'sweet':
      return new IncrementalSweet({ beta: num(p, 'beta') });
    case 'archer':
      return new IncrementalArcher(start);
    case 'grpo':
      throw new CreditError('bad-param', 'grpo is group-scoped: use new IncrementalGroupAdvantage(K, params) with push(i, turn) and result(i)');
  }
}
