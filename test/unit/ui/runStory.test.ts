// The Train view's sentence of what a run did (ui/state/runStory.ts), over hand-made reports shaped as
// the loop sends them: a run whose validation kept an iteration, one that kept its start, one a guard
// rolled back (mid-run and at its end), one stopped early, and a short run the guard never validated.
import { describe, expect, it } from 'vitest';
import { runSentence, type RunFacts } from '../../../src/ui/state/runStory.ts';
import type { IterationReport, LoopEvent } from '../../../src/rl/algos/types.ts';

type Report = RunFacts['reports'][number];

/** Iterations 1…n of 64 episodes each whose adapters are their own, with `extra` merged into some. */
function reports(n: number, extra: Record<number, { metrics?: IterationReport['metrics']; events?: LoopEvent[] }> = {}): Report[] {
  return Array.from({ length: n }, (_, i) => ({
    iteration: i + 1,
    metrics: { episodes: 64, adapter_iteration: i + 1, ...extra[i + 1]?.metrics },
    events: extra[i + 1]?.events ?? [],
  }));
}

const base = { algo: 'GRPO', on: "guess's lesson turns-decide", seconds: 246, validateEvery: 8 };

describe('runSentence', () => {
  it('names the validated adapter it kept, with validation before and after', () => {
    const r = reports(50, {
      8: { metrics: { validation_start: 0.66, validation_success: 0.7 } },
      48: { metrics: { validation_success: 0.74 } },
      50: {
        metrics: { validation_success: 0.71, adapter_iteration: 48 },
        events: [{ kind: 'kept-best', why: 'kept the adapters of iteration 48', text: 'at the end of the run: kept …' }],
      },
    });
    expect(runSentence({ ...base, planned: 50, reports: r })).toBe(
      "GRPO trained 50 iterations (3,200 episodes, 4.1 min) on guess's lesson turns-decide; validation success 0.66 → 0.71; the kept adapter is iteration 48's, the best validated.",
    );
  });

  it('says the run kept its start when no validated gain beat it', () => {
    const r = reports(16, {
      8: { metrics: { validation_start: 0.59, validation_success: 0.6 } },
      16: { metrics: { validation_success: 0.57, adapter_iteration: 0 }, events: [{ kind: 'kept-best', why: 'kept the adapters of iteration 0', text: '…' }] },
    });
    expect(runSentence({ ...base, planned: 16, reports: r, seconds: 90 })).toBe(
      "GRPO trained 16 iterations (1,024 episodes, 1.5 min) on guess's lesson turns-decide; validation success 0.59 → 0.57; the run kept its start: no validated gain.",
    );
  });

  it('counts updates a guard undid, and says where a rollback at the end left the run', () => {
    const back = (to: number, atEnd: boolean): LoopEvent => ({ kind: 'rolled-back', to, why: 'validation fell 9 points', lr: 5e-4, atEnd, text: '…' });
    const r = reports(10, {
      3: { metrics: { adapter_iteration: 2 }, events: [back(2, false)] },
      8: { metrics: { validation_start: 0.8, validation_success: 0.82 } },
      10: { metrics: { validation_success: 0.7, adapter_iteration: 8 }, events: [back(8, true)] },
    });
    expect(runSentence({ ...base, algo: 'PPO', on: 'backend', planned: 10, reports: r, seconds: 600 })).toBe(
      "PPO trained 10 iterations (640 episodes, 10.0 min) on backend; validation success 0.80 → 0.70; a guard undid 1 update; at its end a guard rolled back (validation fell 9 points); the kept adapter is iteration 8's.",
    );
  });

  it('says a run was stopped before its planned iterations', () => {
    expect(runSentence({ ...base, planned: 10, reports: reports(2), seconds: 30 })).toBe(
      "GRPO trained 2 of 10 iterations before it was stopped (128 episodes, 30 s) on guess's lesson turns-decide; not validated (the guard checks every 8 iterations); the kept adapter is iteration 2's.",
    );
    expect(runSentence({ ...base, planned: 10, reports: [] })).toBe('GRPO was stopped before its first iteration ended; no adapter was trained.');
  });

  it('a short run without validation: the last adapter, or the start when every update was undone or skipped', () => {
    const one = reports(1);
    expect(runSentence({ ...base, validateEvery: 0, planned: 1, reports: one, seconds: 12 })).toBe(
      "GRPO trained 1 iteration (64 episodes, 12 s) on guess's lesson turns-decide; validation off; the kept adapter is iteration 1's.",
    );
    const undone = reports(1, {
      1: { metrics: { adapter_iteration: 0 }, events: [{ kind: 'rolled-back', to: 0, why: 'KL', lr: 1e-4, atEnd: false, text: '…' }] },
    });
    expect(runSentence({ ...base, planned: 1, reports: undone })).toMatch(/a guard undid 1 update; the run kept its start: its updates were undone\.$/);
    const skipped = reports(1, { 1: { metrics: { adapter_iteration: 0 }, events: [{ kind: 'no-update', reason: 'warm-up', text: '…' }] } });
    expect(runSentence({ ...base, planned: 1, reports: skipped })).toMatch(/; the run kept its start: no update was made \(warm-up\)\.$/);
  });
});
