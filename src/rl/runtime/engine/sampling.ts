// Token sampling from one row of logits: greedy (temperature 0), temperature scaling, top-k
// (Fan et al. 2018, arXiv 1805.04833) and nucleus/top-p (Holtzman et al. 2019, arXiv 1904.09751),
// drawn from a seeded Rng (src/rl/util/rng.ts) so a seed reproduces a sample in Node, workers and
// browsers. Pure: Float32Array in, numbers out.
//
// The log-prob returned with a token is log π(token | context) under the *model* (log-softmax of
// the raw logits, temperature 1, nothing filtered): the quantity every RL algorithm's ratio uses and
// what re-scoring the completion afterwards gives. The sampling distribution itself may differ.
import type { Rng } from '../../util/rng.ts';
import { SamplingParamsError } from './errors.ts';

/** How tokens are chosen. Every field has a default (DEFAULT_SAMPLING). */
export interface SamplingParams {
  /** 0 = greedy (argmax, no randomness); otherwise logits are divided by it before softmax. */
  temperature: number;
  /** Nucleus sampling: keep the most likely tokens whose probability adds up to ≥ topP; (0, 1], 1 = off. */
  topP: number;
  /** Keep only the k most likely tokens; 0 = off. */
  topK: number;
  /** Most tokens generated per sequence (the context window may end generation sooner). */
  maxNewTokens: number;
  /** Generation of a sequence stops as soon as its text contains one of these (cut from the text). */
  stop: string[];
  /** Seeds the sampler; the same seed and prompt give the same tokens. */
  seed: number;
  /** Never sample special tokens other than <|end|> (role, pad, bos): a reply is text. */
  banSpecial: boolean;
  /** <|end|> is not sampled before this many tokens (Hugging Face's min_new_tokens); benchmarks use it. */
  minNewTokens: number;
}

export const DEFAULT_SAMPLING: SamplingParams = { temperature: 1, topP: 1, topK: 0, maxNewTokens: 64, stop: [], seed: 0, banSpecial: true, minNewTokens: 0 };

/** Upper bounds that catch mistakes (e.g. maxNewTokens 1e9) with a clear message. */
export const SAMPLING_LIMITS = { maxTemperature: 100, maxNewTokens: 1 << 16, maxStops: 16 } as const;

/** Fills defaults and checks every field; throws SamplingParamsError naming the field. */
export function resolveSampling(input: Partial<SamplingParams> = {}): SamplingParams {
  // Absent and undefined fields take the defaults (a CLI passes undefined for options not given).
  const given = Object.fromEntries(Object.entries(input ?? {}).filter(([, v]) => v !== undefined)) as Partial<SamplingParams>;
  const p: SamplingParams = { ...DEFAULT_SAMPLING, ...given, stop: [...(given.stop ?? DEFAULT_SAMPLING.stop)] };
  const bad = (field: string, rule: string, v: unknown) =>
    new SamplingParamsError(field, `sampling: ${field} must be ${rule}, got ${JSON.stringify(v) ?? String(v)}`);
  if (typeof p.temperature !== 'number' || !Number.isFinite(p.temperature) || p.temperature < 0 || p.temperature > SAMPLING_LIMITS.maxTemperature) {
    throw bad('temperature', `a number in [0, ${SAMPLING_LIMITS.maxTemperature}] (0 = greedy)`, p.temperature);
  }
  if (typeof p.topP !== 'number' || !(p.topP > 0 && p.topP <= 1)) throw bad('topP', 'in (0, 1]', p.topP);
  if (!Number.isInteger(p.topK) || p.topK < 0) throw bad('topK', 'an integer ≥ 0 (0 = off)', p.topK);
  if (!Number.isInteger(p.maxNewTokens) || p.maxNewTokens < 1 || p.maxNewTokens > SAMPLING_LIMITS.maxNewTokens) {
    throw bad('maxNewTokens', `an integer in [1, ${SAMPLING_LIMITS.maxNewTokens}]`, p.maxNewTokens);
  }
  if (!Array.isArray(p.stop) || p.stop.length > SAMPLING_LIMITS.maxStops || p.stop.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw bad('stop', `a list of at most ${SAMPLING_LIMITS.maxStops} non-empty strings`, p.stop);
  }
  if (!Number.isSafeInteger(p.seed)) throw bad('seed', 'an integer', p.seed);
  if (!Number.isInteger(p.minNewTokens) || p.minNewTokens < 0) throw bad('minNewTokens', 'an integer ≥ 0', p.minNewTokens);
  if (typeof p.banSpecial !== 'boolean') throw bad('banSpecial', 'true or false', p.banSpecial);
  return p;
}

/** log-softmax of one row, in float64. */
export function logSoftmax(logits: ArrayLike<number>): Float64Array {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i] > max) max = logits[i];
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i] - max);
  const lse = max + Math.log(sum);
  const out = new Float64Array(logits.length);
  for (let i = 0; i < logits.length; i++) out[i] = logits[i] - lse;
  return out;
}

/** log-softmax of one row at one index, in float64: the same value as logSoftmax(logits)[i]. */
export function logProbAt(logits: ArrayLike<number>, i: number): number {
  let max = -Infinity;
  for (let j = 0; j < logits.length; j++) if (logits[j] > max) max = logits[j];
  let sum = 0;
  for (let j = 0; j < logits.length; j++) sum += Math.exp(logits[j] - max);
  return logits[i] - (max + Math.log(sum));
}

/** Index of the largest value; the first on ties. */
export function argmax(x: ArrayLike<number>): number {
  let best = 0;
  for (let i = 1; i < x.length; i++) if (x[i] > x[best]) best = i;
  return best;
}

/** A chosen token and its log-prob under the model. */
export interface Sampled {
  token: number;
  logprob: number;
}

/**
 * The candidate tokens and their unnormalised probabilities after temperature, top-k and top-p,
 * most likely first (ties by lower id). Exposed for tests.
 */
export function samplingSupport(logits: ArrayLike<number>, p: Pick<SamplingParams, 'temperature' | 'topK' | 'topP'>): { ids: number[]; weights: number[] } {
  const order = Array.from({ length: logits.length }, (_, i) => i).sort((a, b) => logits[b] - logits[a] || a - b);
  const ids = p.topK > 0 ? order.slice(0, p.topK) : order;
  const top = logits[ids[0]];
  const weights = ids.map((i) => Math.exp((logits[i] - top) / p.temperature));
  if (p.topP < 1) {
    const total = weights.reduce((a, b) => a + b, 0);
    let cum = 0;
    let keep = 0;
    while (keep < ids.length) {
      cum += weights[keep++] / total;
      if (cum >= p.topP) break;
    }
    ids.length = keep;
    weights.length = keep;
  }
  return { ids, weights };
}

/**
 * Picks one token from a row of logits. Sampling draws exactly one number from `rng` per token.
 * `banned[id]` = 1 removes a token from the choice (its log-prob is still the model's).
 */
export function sampleToken(raw: ArrayLike<number>, p: Pick<SamplingParams, 'temperature' | 'topK' | 'topP'>, rng: Rng, banned?: Uint8Array): Sampled {
  // Greedy and plain temperature sampling skip banned ids in place and compute the one log-prob they
  // return; only top-k/top-p copy the row (per-token allocations of vocab size add up at 8 rows).
  if (p.temperature === 0) {
    let token = -1;
    for (let i = 0; i < raw.length; i++) if (!banned?.[i] && (token < 0 || raw[i] > raw[token])) token = i;
    return { token, logprob: logProbAt(raw, token) };
  }
  if (p.topK === 0 && p.topP === 1) {
    // Plain temperature sampling: no sort, walk the vocabulary in id order.
    let top = -Infinity;
    for (let i = 0; i < raw.length; i++) if (!banned?.[i] && raw[i] > top) top = raw[i];
    const w = new Float64Array(raw.length);
    let sum = 0;
    for (let i = 0; i < raw.length; i++) sum += w[i] = banned?.[i] ? 0 : Math.exp((raw[i] - top) / p.temperature);
    let u = rng.next() * sum;
    let k = 0;
    while (k < w.length - 1 && u >= w[k]) u -= w[k++];
    // Never land on a zero-weight tail token through rounding.
    while (w[k] === 0 && k > 0) k--;
    return { token: k, logprob: logProbAt(raw, k) };
  }
  let logits = raw;
  if (banned) {
    const masked = Float32Array.from(raw);
    for (let i = 0; i < masked.length; i++) if (banned[i]) masked[i] = -Infinity;
    logits = masked;
  }
  const { ids, weights } = samplingSupport(logits, p);
  const total = weights.reduce((a, b) => a + b, 0);
  let u = rng.next() * total;
  let k = 0;
  while (k < ids.length - 1 && u >= weights[k]) u -= weights[k++];
  return { token: ids[k], logprob: logProbAt(raw, ids[k]) };
}
