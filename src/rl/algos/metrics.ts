// RAGEN's Echo Trap detector over a training run's iterations (issue #8 point 4): within-group reward
// spread collapsing, gradient-norm spikes, and replies collapsing onto a few templates; and the loss
// spike test behind rollback. The per-iteration figures they read are rollout/metrics.ts rolloutMetrics.
import type { EchoConfig } from './config.ts';
import type { EchoSign, LoopEvent } from './types.ts';

function median(xs: readonly number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : 0;
}

/** Echo Trap signs of this iteration given the run's history (RAGEN §4: spread collapses first, then grad norms spike, replies fall onto templates). */
export function echoTrapSigns(
  cfg: EchoConfig,
  now: { spread: number; gradNorm: number; distinct: number },
  history: { spreads: readonly number[]; gradNorms: readonly number[]; firstDistinct: number | null },
): (LoopEvent & { kind: 'echo-trap' })[] {
  const out: (LoopEvent & { kind: 'echo-trap' })[] = [];
  const sign = (s: EchoSign, text: string) => out.push({ kind: 'echo-trap', sign: s, text });
  const best = Math.max(0, ...history.spreads);
  if (best > 0 && now.spread < cfg.spreadDrop * best) {
    sign(
      'spread-collapse',
      `Echo Trap: within-group reward spread ${now.spread.toFixed(3)} fell below ${Math.round(cfg.spreadDrop * 100)}% of its best ${best.toFixed(3)}`,
    );
  }
  const med = median(history.gradNorms);
  if (history.gradNorms.length >= 2 && med > 0 && now.gradNorm > cfg.gradSpike * med) {
    sign('grad-spike', `Echo Trap: gradient norm ${now.gradNorm.toFixed(3)} is ${(now.gradNorm / med).toFixed(1)}× its recent median`);
  }
  const first = history.firstDistinct;
  if (first !== null && first > 0 && now.distinct < cfg.distinctDrop * first) {
    sign(
      'templates',
      `Echo Trap: only ${(now.distinct * 100).toFixed(0)}% of replies are distinct, below ${Math.round(cfg.distinctDrop * 100)}% of the first iteration's ${(first * 100).toFixed(0)}% (repeated templates)`,
    );
  }
  return out;
}

/** The Echo Trap signs' sentences (echoTrapSigns). */
export function echoTrapWarnings(...args: Parameters<typeof echoTrapSigns>): string[] {
  return echoTrapSigns(...args).map((e) => e.text);
}

/** True when a loss is non-finite or spikes above spikeFactor × the recent median |loss| (and above minLoss). */
export function isLossSpike(loss: number, history: readonly number[], spikeFactor: number, minLoss: number): boolean {
  if (!Number.isFinite(loss)) return true;
  if (history.length < 3) return false;
  const med = median(history.map(Math.abs));
  return Math.abs(loss) > minLoss && Math.abs(loss) > spikeFactor * Math.max(med, 1e-8);
}
