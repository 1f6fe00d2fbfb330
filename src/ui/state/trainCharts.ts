// The Train view's live charts from the iterations' metrics (pure, tested in Node): which series each
// chart draws. The rollouts' success follows which tasks each iteration drew (the same shape for every
// algorithm on one seed), so the success chart also draws the validation guard's held-out draw, taken
// every few iterations: that is the learning (issue 49). Where an algorithm trains two learners
// (SWEET-RL: the critic and the actor), the loss and gradient-norm charts draw both.

/** One line of a chart; `sparse`: measured at some iterations only (NaN elsewhere). */
export interface ChartSeries {
  label: string;
  values: number[];
  /** A band behind the line (mean ± spread). */
  band?: { lo: number[]; hi: number[] };
  sparse?: boolean;
}

export interface TrainChart {
  title: string;
  series: ChartSeries[];
}

/** Every metric whose name matches, in the order they first appear, per iteration (NaN where absent). */
function seriesOf(metrics: readonly Record<string, number>[], pattern: RegExp): ChartSeries[] {
  const keys = [...new Set(metrics.flatMap((m) => Object.keys(m)))].filter((k) => pattern.test(k));
  return keys.map((key) => ({ label: key, values: metrics.map((m) => m[key] ?? Number.NaN) }));
}

/** The charts of a run so far, from each iteration's metrics (IterationReport.metrics), oldest first. */
export function trainCharts(metrics: readonly Record<string, number>[]): TrainChart[] {
  const out: TrainChart[] = [];
  const add = (title: string, series: ChartSeries[]) => series.length && out.push({ title, series });
  const [success] = seriesOf(metrics, /^success$/);
  const validation = seriesOf(metrics, /^validation_success$/).map((s) => ({ ...s, label: 'validation (held-out draw)', sparse: true }));
  if (success) add('Success (rollouts) and validation', [{ ...success, label: 'rollouts' }, ...validation]);
  const [mean] = seriesOf(metrics, /^reward_mean$/);
  const [spread] = seriesOf(metrics, /^reward_spread$/);
  if (mean)
    add('Reward mean ± spread within groups', [
      { ...mean, ...(spread ? { band: { lo: mean.values.map((m, i) => m - spread.values[i]), hi: mean.values.map((m, i) => m + spread.values[i]) } } : {}) },
    ]);
  add('Loss', seriesOf(metrics, /loss$/));
  add('Entropy', seriesOf(metrics, /^entropy$/));
  add('KL to reference', seriesOf(metrics, /kl/).slice(0, 1));
  add('Gradient norm', seriesOf(metrics, /grad_norm$/));
  add('Response length (tokens)', seriesOf(metrics, /^response_length$/));
  add(
    'Seconds per iteration: rollouts, train steps, scoring',
    [/^rollout_seconds$/, /^train_seconds$/, /^score_seconds$/].flatMap((p) => seriesOf(metrics, p)),
  );
  return out;
}
