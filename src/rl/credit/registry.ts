// The estimator registry: every credit estimator's spec (spec.ts), in the order the views and the
// CLI list them. The estimator names, parameter checks and defaults, batch credit and incremental
// credit by name all follow from these specs: to add an estimator, write its module with a spec and
// add one line here.
import { archerEstimator } from './archer.ts';
import { biLevelGaeEstimator } from './biLevelGae.ts';
import { CreditError } from './errors.ts';
import { gaeEstimator } from './gae.ts';
import { grpoEstimator } from './groupAdvantage.ts';
import { monteCarloEstimator } from './monteCarlo.ts';
import type { EstimatorSpec } from './spec.ts';
import { sweetEstimator } from './sweetAdvantage.ts';
import type { CreditParams, CreditResult, EpisodeCreditInput, IncrementalCredit, IncrementalStart } from './types.ts';

/** Every estimator, in display order. */
export const ESTIMATORS = [monteCarloEstimator, gaeEstimator, biLevelGaeEstimator, grpoEstimator, sweetEstimator, archerEstimator] as const;

/** Every estimator's name. */
export type EstimatorName = (typeof ESTIMATORS)[number]['name'];
export const ESTIMATOR_NAMES: readonly EstimatorName[] = ESTIMATORS.map((s) => s.name);

/** A registered estimator's spec. */
export type RegisteredEstimator = (typeof ESTIMATORS)[number];

/** The registry entry for `name` (throws CreditError 'bad-param' for an unknown name). */
export function estimatorSpec(name: string): RegisteredEstimator {
  const spec = ESTIMATORS.find((e) => e.name === name);
  if (!spec) throw new CreditError('bad-param', `unknown estimator "${name}"; known: ${ESTIMATOR_NAMES.join(', ')}`);
  return spec;
}

/** Checks `params` names and types against the spec and fills defaults. */
export function resolveParams(name: EstimatorName, params: CreditParams = {}): CreditParams {
  const spec: EstimatorSpec = estimatorSpec(name);
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

/** Batch credit by name for many episodes (GRPO groups them by `group`); result i belongs to episodes[i]. */
export function computeCredit(name: EstimatorName, episodes: readonly EpisodeCreditInput[], params: CreditParams = {}): CreditResult[] {
  return estimatorSpec(name).batch(episodes, resolveParams(name, params));
}

/**
 * An incremental estimator by name, for one episode. GRPO is group-scoped: use
 * `new IncrementalGroupAdvantage(K, params) with push(i, turn) and result(i)` instead (this throws 'bad-param' for it).
 */
export function createIncremental(name: EstimatorName, params: CreditParams = {}, start: IncrementalStart = {}): IncrementalCredit {
  return estimatorSpec(name).incremental(resolveParams(name, params), start);
}
