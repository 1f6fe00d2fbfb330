// The adapter menus of Play and Evaluate (pure; the state is adapters.svelte.ts): the policy
// worker's adapters first, then the stored ones it lacks, newest first, each labelled with the
// lineage its checkpoint recorded (algorithm, iteration).
import type { LessonStart } from '../../rl/envs/family.ts';
import type { AdapterSummary } from '../../rl/store/index.ts';

/** One adapter a menu offers. */
export interface AdapterChoice {
  id: string;
  /** "train-grpo-… · grpo · iteration 3", or the bare id when nothing is stored about it. */
  label: string;
  /** Registered in the policy worker now. */
  registered: boolean;
  /** In the store (survives a reload). */
  stored: boolean;
}

/**
 * Whose adapter it is, in words: "iteration 3", or for iteration 0 "the start (untrained)" — a run
 * whose guard kept its start ends on adapters no update changed, and must not read as trained.
 */
export function iterationLabel(iteration: number): string {
  return iteration === 0 ? 'the start (untrained)' : `iteration ${iteration}`;
}

/** The label of a stored adapter: its id, then the algorithm and the iteration whose adapters its checkpoint recorded. */
export function adapterLabel(id: string, row: Pick<AdapterSummary, 'config'> | undefined): string {
  const algo = typeof row?.config.algorithm === 'string' ? row.config.algorithm : null;
  const iteration = typeof row?.config.iteration === 'number' ? row.config.iteration : null;
  return [id, algo, iteration !== null ? iterationLabel(iteration) : null].filter((x) => x !== null).join(' · ');
}

/**
 * The policy a stored adapter adapts: the forge's student when its checkpoint recorded that base
 * (algos/checkpoint.ts baseModels; a lesson that starts from the student), else the shipped policy.
 */
export function adapterBase(row: Pick<AdapterSummary, 'baseModel'>): LessonStart {
  return row.baseModel === 'student' ? 'student' : 'policy';
}

/** The worker's adapters, then the stored ones it lacks (newest first), each with its label. */
export function adapterChoices(registered: readonly string[], stored: readonly AdapterSummary[]): AdapterChoice[] {
  const ids = [...registered, ...[...stored].reverse().map((r) => r.id)].filter((id, i, all) => all.indexOf(id) === i);
  return ids.map((id) => {
    const row = stored.find((r) => r.id === id);
    return { id, label: adapterLabel(id, row), registered: registered.includes(id), stored: row !== undefined };
  });
}
