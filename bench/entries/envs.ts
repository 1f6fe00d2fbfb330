// Environment throughput per task family with the simulated collaborator: expert episodes are
// recorded once, then replayed (reset + every step, collaborator replies simulated) under the timer,
// so the figure excludes the agent and counts only environment and collaborator work.
import { time, type BenchEntry, type BenchRow } from '../harness.ts';
import { replayEpisode } from '../../src/rl/envs/episode.ts';
import { createEnv, FAMILY_NAMES } from '../../src/rl/envs/registry.ts';
import { familyAgent } from '../../src/rl/rollout/agents.ts';
import { evaluate } from '../../src/rl/rollout/evaluate.ts';

export const envs: BenchEntry = {
  name: 'envs',
  description: 'environment steps per second per task family (simulated collaborator, expert actions)',
  byDefault: true,
  async run(log) {
    const rows: BenchRow[] = [];
    for (const family of FAMILY_NAMES) {
      const { episodes } = await evaluate({ family, split: 'test', episodes: 20, seed: 1 }, familyAgent('noisy', family));
      const steps = episodes.reduce((a, e) => a + e.turns.length, 0);
      const env = createEnv(family);
      const t = await time(
        () => {
          for (const e of episodes) replayEpisode(env, e);
        },
        { warmup: 2, iterations: 100, budgetMs: 2000 },
      );
      const stepsPerSecond = (steps * 1000) / t.meanMs;
      const episodesPerSecond = (episodes.length * 1000) / t.meanMs;
      log(
        `envs ${family}: ${stepsPerSecond.toFixed(0)} steps/s, ${episodesPerSecond.toFixed(0)} episodes/s (${(steps / episodes.length).toFixed(1)} steps/episode)`,
      );
      rows.push(
        { case: `${family} (noisy-expert actions)`, metric: 'steps/s', value: stepsPerSecond, unit: '1/s', note: 'includes reset' },
        { case: `${family} (noisy-expert actions)`, metric: 'episodes/s', value: episodesPerSecond, unit: '1/s' },
      );
    }
    return rows;
  },
};
