// Loss builders for the train-step graph, each emitted into the forward graph from the model's
// logits [B, T, V] (or values [B, T]) and the batch inputs it declares (names in LOSS_INPUTS).
//  - SFT: masked, per-token-weighted cross-entropy.
//  - Clipped policy gradient (PPO, Schulman et al. 2017, eq. 7) with separate ε_low / ε_high
//    (DAPO's "clip-higher"; RAGEN StarPO-S uses 0.2 / 0.28), optional KL to a reference with the k3
//    estimator (Schulman 2020, "Approximating KL divergence"), optional entropy bonus.
//  - DPO (Rafailov et al. 2023, eq. 7) on (chosen, rejected) index pairs, plus an NLL term on the
//    chosen sequences (SWEET-RL: β = 0.1, NLL 0.01).
//  - Bradley–Terry on summed per-turn advantages (SWEET-RL, arXiv 2503.15478):
//    L = −log σ(Σ_t A(chosen_t) − Σ_t A(rejected_t)), A = β · mean_tokens log(π_critic / π_ref).
//  - Value MSE, optionally clipped around the old values (PPO2's value clipping).
// Coefficients are build-time constants; learning rate and optimiser settings are graph inputs.
import type { DType, GraphBuilder } from '../onnx/builder.ts';
import { LossEmit, tokenAccuracy, tokenEntropy, tokenLogProbs } from './tokenOps.ts';

/** Masked, per-token-weighted cross-entropy. */
export interface SftLoss {
  kind: 'sft';
  /** Read a per-token `weights` [B, T] input (multiplies the mask); else every token weighs 1. */
  weighted?: boolean;
}

/** Clipped policy-gradient objective (PPO; GRPO when the advantages are group-normalised). */
export interface PolicyGradientLoss {
  kind: 'policy-gradient';
  /** ε_low: the ratio is clipped below at 1 − ε_low. */
  clipLow: number;
  /** ε_high: the ratio is clipped above at 1 + ε_high. */
  clipHigh: number;
  /** Coefficient of the k3 KL to `ref_logp`; 0 or absent: no KL term and no `ref_logp` input. */
  klCoef?: number;
  /** Coefficient of the entropy bonus (subtracted from the loss); default 0. */
  entropyCoef?: number;
  /** 'token-mean' (default): mean over all masked tokens; 'seq-mean-token-mean': per sequence first. */
  aggregation?: 'token-mean' | 'seq-mean-token-mean';
}

/** Direct preference optimisation on pairs of rows of the batch. */
export interface DpoLoss {
  kind: 'dpo';
  /** β: scale of the implicit reward β · log(π / π_ref). */
  beta: number;
  /** Coefficient of the mean per-token NLL on the chosen rows; default 0. */
  nllCoef?: number;
  /** P: number of pairs (length of the `chosen` and `rejected` index inputs). */
  pairs: number;
}

/** Bradley–Terry on per-trajectory sums of per-turn advantages (critic training). */
export interface BradleyTerryLoss {
  kind: 'bradley-terry';
  /** 'log-ratio': a_t = β (log π(t) − ref_logp); 'value': a_t = values[b, t] from a value head. */
  source: 'log-ratio' | 'value';
  /** β for the log-ratio source (SWEET-RL's advantage scale); ignored for 'value'. */
  beta: number;
  /** P: number of pairs. */
  pairs: number;
  /**
   * Coefficient λ of a ridge on the per-token advantages: + λ · Σ_b,t a_t² w_t / Σ_b,t w_t (w =
   * turn_weights), the mean over turns of each turn's mean a². Bradley–Terry sees only differences of
   * Σ_t A between two trajectories, so a turn's level is free wherever pairs do not contrast it; the
   * ridge pulls it toward 0 there. On the SWEET-RL critic it gave no reliable gain in turn ranking
   * (docs/experiments/2026-12-04-sweet-critic-ridge-and-ceiling.md, "A ridge on the log-ratio"). 0 or absent: none.
   */
  ridge?: number;
}

/** Squared error of a value head, optionally clipped around the old values. */
export interface ValueLoss {
  kind: 'value-mse';
  /** Clip range for v − old_values; absent: no clipping and no `old_values` input. */
  clip?: number;
}

export type LossSpec = SftLoss | PolicyGradientLoss | DpoLoss | BradleyTerryLoss | ValueLoss;

/** Shapes and dtypes of the batch inputs a loss declares, by name ([B, T] unless noted). */
export const LOSS_INPUTS = {
  targets: 'int32 [B, T]: next-token ids; logits[b, t] predict targets[b, t]',
  loss_mask: 'float [B, T]: 1 on tokens that count, 0 elsewhere',
  weights: 'float [B, T]: per-token weights (SFT with weighted)',
  advantages: 'float [B, T]: per-token advantages (policy-gradient)',
  old_logp: 'float [B, T]: log-probs of the behaviour policy (policy-gradient)',
  ref_logp: 'float [B, T]: reference-model log-probs (KL, DPO, Bradley–Terry log-ratio)',
  chosen: 'int32 [P]: batch rows of the preferred member of each pair',
  rejected: 'int32 [P]: batch rows of the other member',
  turn_weights: 'float [B, T]: Bradley–Terry per-token weights, 1/len(turn) on agent tokens (mean per turn, summed over turns)',
  returns: 'float [B, T]: value targets (value-mse)',
  old_values: 'float [B, T]: values at rollout time (clipped value-mse)',
} as const;

/** What the model's forward pass produced. */
export interface LossContext {
  g: GraphBuilder;
  dtype: DType;
  /** B, T: batch rows and sequence length. */
  batch: number;
  seqLen: number;
  /** [B, T, V] logits, for every loss but value-mse and Bradley–Terry 'value'. */
  logits?: string;
  /** V, needed with logits. */
  vocab?: number;
  /** [B, T] value-head output. */
  values?: string;
}

/** The emitted loss (a rank-0 value) and named rank-0 statistics. */
export interface LossOutput {
  loss: string;
  stats: Record<string, string>;
}

/** Raised for a loss spec that cannot be emitted (missing logits, bad coefficient). */
export class LossSpecError extends Error {
  override name = 'LossSpecError';
}

/** Emits the loss described by `spec`, declaring the batch inputs it reads. */
export function emitLoss(spec: LossSpec, ctx: LossContext): LossOutput {
  const e = new LossEmit(ctx.g);
  e.dtype = ctx.dtype;
  const bt = [ctx.batch, ctx.seqLen];
  const f = (name: keyof typeof LOSS_INPUTS) => ctx.g.input(name, ctx.dtype, bt);
  const pairIdx = (p: number) => [ctx.g.input('chosen', 'int32', [p]), ctx.g.input('rejected', 'int32', [p])];
  const logProbs = () => {
    if (!ctx.logits || !ctx.vocab) throw new LossSpecError(`${spec.kind} loss needs logits and vocab from the forward pass`);
    return { ...tokenLogProbs(e, ctx.logits, ctx.g.input('targets', 'int32', bt), ctx.vocab), logits: ctx.logits };
  };
  switch (spec.kind) {
    case 'sft': {
      const lp = logProbs();
      const mask = f('loss_mask');
      const w = spec.weighted ? e.op('Mul', [mask, f('weights')]) : mask;
      const nll = e.op('Neg', [lp.logp]);
      return {
        loss: e.op('Div', [e.sumAll(e.op('Mul', [nll, w])), e.op('Max', [e.sumAll(mask), e.s(1)])]),
        stats: {
          nll: e.maskedMean(nll, mask),
          entropy: e.maskedMean(tokenEntropy(e, lp.logSoftmax), mask),
          token_accuracy: tokenAccuracy(e, lp.logits, 'targets', mask),
        },
      };
    }
    case 'policy-gradient':
      return policyGradient(spec, e, logProbs(), f);
    case 'dpo': {
      if (!(spec.beta > 0)) throw new LossSpecError(`dpo: beta must be > 0, got ${spec.beta}`);
      const lp = logProbs();
      const mask = f('loss_mask');
      const ref = f('ref_logp');
      const [chosen, rejected] = pairIdx(spec.pairs);
      const seqLogp = e.sumLast(e.op('Mul', [lp.logp, mask])); // [B]
      const ratio = e.op('Sub', [seqLogp, e.sumLast(e.op('Mul', [ref, mask]))]); // [B]
      const rc = e.op('Mul', [e.op('Gather', [ratio, chosen], { axis: 0 }), e.s(spec.beta)]);
      const rr = e.op('Mul', [e.op('Gather', [ratio, rejected], { axis: 0 }), e.s(spec.beta)]);
      const margin = e.op('Sub', [rc, rr]);
      let loss = e.op('Neg', [e.mean(e.logSigmoid(margin, spec.pairs))]);
      const stats: Record<string, string> = {
        dpo_loss: loss,
        reward_margin: e.mean(margin),
        reward_accuracy: e.mean(e.asFloat(e.op('Greater', [margin, e.s(0)]))),
        chosen_reward: e.mean(rc),
        rejected_reward: e.mean(rr),
      };
      if (spec.nllCoef) {
        const chosenLen = e.sumAll(e.op('Gather', [e.sumLast(mask), chosen], { axis: 0 }));
        const chosenLogp = e.sumAll(e.op('Gather', [seqLogp, chosen], { axis: 0 }));
        const nll = e.op('Div', [e.op('Neg', [chosenLogp]), e.op('Max', [chosenLen, e.s(1)])]);
        stats.nll = nll;
        loss = e.op('Add', [loss, e.op('Mul', [nll, e.s(spec.nllCoef)])]);
      }
      return { loss, stats };
    }
    case 'bradley-terry': {
      let perToken: string;
      if (spec.source === 'value') {
        if (!ctx.values) throw new LossSpecError('bradley-terry with source "value" needs values from the forward pass');
        perToken = ctx.values;
      } else {
        const lp = logProbs();
        perToken = e.op('Mul', [e.op('Sub', [lp.logp, f('ref_logp')]), e.s(spec.beta)]);
      }
      const [chosen, rejected] = pairIdx(spec.pairs);
      const w = f('turn_weights');
      const total = e.sumLast(e.op('Mul', [perToken, w])); // [B]: Σ_turns A
      const diff = e.op('Sub', [e.op('Gather', [total, chosen], { axis: 0 }), e.op('Gather', [total, rejected], { axis: 0 })]);
      const bt = e.op('Neg', [e.mean(e.logSigmoid(diff, spec.pairs))]);
      const stats: Record<string, string> = { bt_margin: e.mean(diff), bt_accuracy: e.mean(e.asFloat(e.op('Greater', [diff, e.s(0)]))) };
      if (spec.ridge !== undefined && !(spec.ridge >= 0)) throw new LossSpecError(`bradley-terry: ridge must be ≥ 0, got ${spec.ridge}`);
      if (!spec.ridge) return { loss: bt, stats };
      stats.bt_loss = bt;
      const sq = e.maskedMean(e.op('Mul', [perToken, perToken]), w); // Σ turn_weights is the number of turns
      stats.bt_ridge = sq;
      return { loss: e.op('Add', [bt, e.op('Mul', [sq, e.s(spec.ridge)])]), stats };
    }
    case 'value-mse': {
      if (!ctx.values) throw new LossSpecError('value-mse needs values from the forward pass');
      const mask = f('loss_mask');
      const ret = f('returns');
      const sq = (v: string) => {
        const d = e.op('Sub', [v, ret]);
        return e.op('Mul', [d, d]);
      };
      let err = sq(ctx.values);
      if (spec.clip !== undefined) {
        const old = f('old_values');
        const delta = e.op('Clip', [e.op('Sub', [ctx.values, old]), e.s(-spec.clip), e.s(spec.clip)]);
        err = e.op('Max', [err, sq(e.op('Add', [old, delta]))]);
      }
      return {
        loss: e.op('Mul', [e.maskedMean(err, mask), e.s(0.5)]),
        stats: { value_mean: e.maskedMean(ctx.values, mask), value_mse: e.maskedMean(sq(ctx.values), mask) },
      };
    }
  }
}

function policyGradient(
  spec: PolicyGradientLoss,
  e: LossEmit,
  lp: { logp: string; logSoftmax: string },
  f: (name: keyof typeof LOSS_INPUTS) => string,
): LossOutput {
  if (!(spec.clipLow >= 0 && spec.clipHigh >= 0)) throw new LossSpecError('policy-gradient: clipLow and clipHigh must be ≥ 0');
  const mask = f('loss_mask');
  const adv = f('advantages');
  const old = f('old_logp');
  const agg = (x: string) => (spec.aggregation === 'seq-mean-token-mean' ? e.seqMeanTokenMean(x, mask) : e.maskedMean(x, mask));
  const logRatio = e.op('Sub', [lp.logp, old]);
  const ratio = e.op('Exp', [logRatio]);
  const lo = e.s(1 - spec.clipLow);
  const hi = e.s(1 + spec.clipHigh);
  const unclipped = e.op('Mul', [ratio, adv]);
  const clipped = e.op('Mul', [e.op('Clip', [ratio, lo, hi]), adv]);
  // Min sends the gradient to its first input on ties, i.e. to the unclipped term inside the range.
  const pgLoss = agg(e.op('Neg', [e.op('Min', [unclipped, clipped])]));
  // k3(p, q) = (q/p) − log(q/p) − 1 ≥ 0, with log(q/p) = other − logp.
  const k3 = (other: string) => {
    const d = e.op('Sub', [other, lp.logp]);
    return e.op('Sub', [e.op('Sub', [e.op('Exp', [d]), d]), e.s(1)]);
  };
  const entropy = agg(tokenEntropy(e, lp.logSoftmax));
  const outside = e.op('Or', [e.op('Less', [ratio, lo]), e.op('Greater', [ratio, hi])]);
  const stats: Record<string, string> = {
    pg_loss: pgLoss,
    entropy,
    approx_kl: agg(k3(old)),
    clip_frac: e.maskedMean(e.asFloat(outside), mask),
  };
  let loss = pgLoss;
  if (spec.klCoef) {
    const kl = agg(k3(f('ref_logp')));
    stats.kl_ref = kl;
    loss = e.op('Add', [loss, e.op('Mul', [kl, e.s(spec.klCoef)])]);
  }
  if (spec.entropyCoef) loss = e.op('Sub', [loss, e.op('Mul', [entropy, e.s(spec.entropyCoef)])]);
  return { loss, stats };
}
