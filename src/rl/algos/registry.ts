// The algorithm registry: every training algorithm's spec (spec.ts), in the order the Train view and
// the CLI list them. The config's section type, the algorithm names, validation, the Train view's
// fields, the CLI's usage and the factory all follow from these specs: to add an algorithm, write its
// spec in specs/ and add one line here.
import type { AlgoSettings } from './algoSettings.ts';
import type { AlgoContext } from './context.ts';
import type { Algorithm } from './algorithm.ts';
import type { AlgoSpec } from './spec.ts';
import { daggerSpec } from './specs/dagger.ts';
import { mtdpoSpec } from './specs/mtdpo.ts';
import { rftSpec } from './specs/rft.ts';
import { grpoSpec, ppoSpec, starpoSpec } from './specs/starpo.ts';
import { sweetSpec } from './specs/sweet.ts';
import { AlgoError } from './types.ts';

/** Every algorithm, in display order. */
export const ALGO_SPECS = [sweetSpec, starpoSpec, grpoSpec, ppoSpec, mtdpoSpec, rftSpec, daggerSpec] as const;

/** The algorithms `turnwise train --algo` runs. */
export type AlgoName = (typeof ALGO_SPECS)[number]['name'];
export const ALGO_NAMES: readonly AlgoName[] = ALGO_SPECS.map((s) => s.name);

/** The spec of a registered algorithm; AlgoError('bad-config') names the known ones otherwise. */
export function algoSpec(name: string): AlgoSpec {
  const spec = (ALGO_SPECS as readonly AlgoSpec[]).find((s) => s.name === name);
  if (!spec) throw new AlgoError('bad-config', `unknown algorithm "${name}" (known: ${ALGO_NAMES.join(', ')})`);
  return spec;
}

/** The config sections of all algorithms (shared ones once). */
export function algoSections(): string[] {
  return [...new Set(ALGO_SPECS.map((s) => s.section))];
}

/** The algorithm's own section of the settings (e.g. settings.starpo for GRPO). */
export function sectionOf(s: AlgoSettings): object {
  return (s as unknown as Record<string, object>)[algoSpec(s.algo).section];
}

/** The default settings of an algorithm (a copy of its spec's defaults). */
export function defaultSettings(algo: AlgoName): AlgoSettings {
  const spec = algoSpec(algo);
  return { algo, [spec.section]: { ...spec.defaults } } as unknown as AlgoSettings;
}

/** The default policy learning rate of an algorithm. */
export function defaultLr(algo: AlgoName): number {
  return algoSpec(algo).lr;
}

/** Builds the algorithm (and its learners) for the settings. */
export function createAlgorithm(ctx: AlgoContext, s: AlgoSettings): Promise<Algorithm> {
  return algoSpec(s.algo).create(ctx, sectionOf(s));
}

/** Whether the algorithm needs the critic model loaded. */
export function needsCritic(s: AlgoSettings): boolean {
  return algoSpec(s.algo).needsCritic(sectionOf(s));
}
