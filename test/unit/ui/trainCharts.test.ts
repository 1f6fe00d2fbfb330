// The Train view's charts (ui/state/trainCharts.ts): the validation guard's held-out draws on the
// success chart, and both learners' losses and gradient norms for an algorithm that trains two.
import { describe, expect, it } from 'vitest';
import { trainCharts } from '../../../src/ui/state/trainCharts.ts';

describe('Train charts', () => {
  it("draw the validation draws beside the rollouts' success, as a sparse series", () => {
    const metrics = Array.from({ length: 9 }, (_, i): Record<string, number> => ({
      success: 0.5 + 0.01 * i,
      reward_mean: 0.1,
      reward_spread: 0.05,
      ...(i === 7 ? { validation_success: 0.62 } : {}),
    }));
    const success = trainCharts(metrics).find((c) => c.title === 'Success (rollouts) and validation')!;
    expect(success.series.map((s) => [s.label, s.sparse ?? false])).toEqual([
      ['rollouts', false],
      ['validation (held-out draw)', true],
    ]);
    expect(success.series[1].values.map((v) => (Number.isNaN(v) ? null : v))).toEqual([null, null, null, null, null, null, null, 0.62, null]);
    const reward = trainCharts(metrics).find((c) => c.title.startsWith('Reward'))!;
    expect(reward.series[0].band?.hi[0]).toBeCloseTo(0.15, 12);
  });

  it("draw the critic's and the actor's loss and gradient norm for SWEET-RL", () => {
    const metrics: Record<string, number>[] = [
      { success: 0.5, critic_loss: 0.69, critic_grad_norm: 1.2 },
      { success: 0.6, critic_loss: 0.6, critic_grad_norm: 1.1, policy_loss: 0.7, policy_grad_norm: 0.4 },
    ];
    const charts = trainCharts(metrics);
    expect(charts.find((c) => c.title === 'Loss')!.series.map((s) => s.label)).toEqual(['critic_loss', 'policy_loss']);
    expect(charts.find((c) => c.title === 'Gradient norm')!.series.map((s) => s.label)).toEqual(['critic_grad_norm', 'policy_grad_norm']);
    // the actor's loss from the iteration it first trained (after the critic's warm-up)
    expect(charts.find((c) => c.title === 'Loss')!.series[1].values[0]).toBeNaN();
  });
});
