// What a finished training run did, in one sentence for the Train view's summary area (issue #45: "the
// Train view says in plain words what the run did"). Pure, over what the view already receives: each
// iteration's metrics (episodes, validation_start, validation_success, adapter_iteration) and its typed
// loop events (algos/types.ts LoopEvent: rolled-back, kept-best). The adapter it names is the one the
// loop published last (loop.ts publish passes weightsIteration, which the last report's
// adapter_iteration carries), so it agrees with the Adapters table's iteration (adapterList.ts).
import type { IterationReport, LoopEvent } from '../../rl/algos/types.ts';

/** What the sentence is built from. */
export interface RunFacts {
  /** The algorithm's label, e.g. "GRPO" (its spec's label). */
  algo: string;
  /** What it trained on, e.g. "guess's lesson turns-decide" or "backend". */
  on: string;
  /** Iterations the form asked for (more than were reported: the run was stopped). */
  planned: number;
  /** The run's reports, oldest first (this Start's, including any resumed after a Pause). */
  reports: readonly Pick<IterationReport, 'iteration' | 'metrics' | 'events'>[];
  /** Wall time of the run's iterations, seconds. */
  seconds: number;
  /** The validation guard's period (LoopConfig.rollback.validateEvery; 0: off). */
  validateEvery: number;
}

const plural = (n: number, word: string) => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;

/** The run in words, e.g. "GRPO trained 50 iterations (3,200 episodes, 4.1 min) on guess's lesson; validation success 0.66 → 0.74; the kept adapter is iteration 48's." */
export function runSentence(f: RunFacts): string {
  const n = f.reports.length;
  const last = f.reports.at(-1);
  if (!last) return `${f.algo} was stopped before its first iteration ended; no adapter was trained.`;
  const episodes = f.reports.reduce((a, r) => a + (r.metrics.episodes ?? 0), 0);
  const trained = n < f.planned ? `${f.algo} trained ${n} of ${f.planned} iterations before it was stopped` : `${f.algo} trained ${plural(n, 'iteration')}`;
  const took = f.seconds < 60 ? `${Math.round(f.seconds)} s` : `${(f.seconds / 60).toFixed(1)} min`;
  const parts = [`${trained} (${plural(episodes, 'episode')}, ${took}) on ${f.on}`];

  const start = f.reports.find((r) => r.metrics.validation_start !== undefined)?.metrics.validation_start;
  const latest = f.reports.findLast((r) => r.metrics.validation_success !== undefined)?.metrics.validation_success;
  if (latest !== undefined) parts.push(`validation success ${start === undefined ? '' : `${start.toFixed(2)} → `}${latest.toFixed(2)}`);
  else if (f.validateEvery > 0) parts.push(`not validated (the guard checks every ${plural(f.validateEvery, 'iteration')})`);
  else parts.push('validation off');

  const events = f.reports.flatMap((r) => r.events);
  const undone = events.filter((e) => e.kind === 'rolled-back' && !e.atEnd).length;
  if (undone) parts.push(`a guard undid ${plural(undone, 'update')}`);
  const endRollback = events.findLast((e): e is Extract<LoopEvent, { kind: 'rolled-back' }> => e.kind === 'rolled-back' && e.atEnd);
  const keptBest = events.some((e) => e.kind === 'kept-best');
  // the loop reports whose adapters it ended on; a report without the figure means no guard moved them
  const kept = last.metrics.adapter_iteration ?? last.iteration;
  if (endRollback) parts.push(`at its end a guard rolled back (${endRollback.why})`);
  if (kept === 0) {
    const skipped = events.findLast((e): e is Extract<LoopEvent, { kind: 'no-update' }> => e.kind === 'no-update');
    const why =
      keptBest || endRollback || latest !== undefined
        ? 'no validated gain'
        : undone
          ? 'its updates were undone'
          : `no update was made${skipped ? ` (${skipped.reason})` : ''}`;
    parts.push(`the run kept its start: ${why}`);
  } else {
    parts.push(`the kept adapter is iteration ${kept}'s${keptBest ? ', the best validated' : ''}`);
  }
  return `${parts.join('; ')}.`;
}
