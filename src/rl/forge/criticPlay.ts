// The SWEET-RL critic's trajectories (critic.ts step 2): every player — the forged policy sampled at
// T = 1, the expert, noisy experts at each noise level and random play — on the same train-split
// tasks of every family in the mix, then the policy's branches from one state of each of its episodes
// (re-rolls, and episodes whose move there is a scripted player's), so that criticPairs.ts can pair
// trajectories of one task and branches of one state (SWEET-RL, Zhou et al. 2025, arXiv 2503.15478, §4).
import { agentSideOf, SCRIPTED, type Turn } from '../envs/turn.ts';
import type { TaskSpec } from '../envs/types.ts';
import { familyAgent, PolicyBatchAgent, type BatchAgent } from '../rollout/agents.ts';
import { rollout, runSlots, taskSpecs, type EpisodeSlot, type RolloutEpisode } from '../rollout/rollout.ts';
import type { PolicyEngine } from '../runtime/policyEngine.ts';
import { hashString, Rng } from '../util/rng.ts';
import type { ForgeConfig } from './config.ts';
import type { SweetCriticConfig } from './criticConfig.ts';

/** The critic's trajectories, index-aligned: each episode with its task and who played it. */
export interface Played {
  episodes: RolloutEpisode[];
  /** Global task index of each episode. */
  task: number[];
  /** Player name of each episode. */
  player: string[];
}

/** Plays every player on the same train-split tasks of every family (the policy on `engine` as 'policy'). */
export async function playAll(engine: PolicyEngine, cfg: ForgeConfig, sc: SweetCriticConfig, log: (l: string) => void): Promise<Played> {
  const out: Played = { episodes: [], task: [], player: [] };
  for (const [fi, m] of cfg.mix.entries()) {
    const specs = taskSpecs(m.family, 'train', sc.tasks, 9_000_000 + 100_000 * fi + 1_000 * cfg.seed, m.options);
    const players: { name: string; k: number; agent: () => Promise<BatchAgent> }[] = [
      {
        name: 'policy',
        k: sc.policyEpisodes,
        agent: () => PolicyBatchAgent.create(engine, { adapter: null, sampling: { temperature: 1, maxNewTokens: cfg.maxReplyTokens } }),
      },
      { name: 'expert', k: 1, agent: async () => familyAgent('expert', m.family) },
      ...sc.noises.map((n) => ({ name: `noisy ${n}`, k: 1, agent: async () => familyAgent('noisy', m.family, n) })),
      { name: 'random', k: 1, agent: async () => familyAgent('random', m.family) },
    ];
    for (const [pi, p] of players.entries()) {
      if (p.k === 0) continue;
      const t0 = performance.now();
      let eps: RolloutEpisode[];
      try {
        eps = (await rollout({ tasks: specs, k: p.k, seed: 77_000 + 100 * cfg.seed + pi }, await p.agent(), { phrasings: cfg.phrasings })).episodes;
      } catch (e) {
        if ((e as Error).name !== 'PromptTooLongError') throw e;
        log(`[forge critic] ${m.family} ${p.name}: not played, ${(e as Error).message}`);
        continue;
      }
      eps.forEach((e, i) => {
        out.episodes.push(e);
        out.task.push(fi * sc.tasks + Math.floor(i / p.k));
        out.player.push(p.name);
      });
      const wins = eps.filter((e) => e.success).length;
      log(
        `[forge critic] ${m.family} ${p.name}: ${eps.length} episodes, success ${((100 * wins) / eps.length).toFixed(1)}% (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      );
    }
  }
  return out;
}

/** Player name of the policy's re-rolls from a state of one of its episodes. */
export const BRANCH = 'policy branch';

/** An episode of the policy and the branches played from one of its states: episode indices (the episode first) and the branch turn. */
export interface BranchGroup {
  members: number[];
  /** The agent turn at which the members part (the length of their shared prefix). */
  turn: number;
}

/**
 * From one state of each of the policy's episodes (turn t drawn uniformly, the environment re-seeded
 * from there as in the counterfactual ground truth): `branches` re-rolls of the policy, and per
 * `swaps` player one episode whose move at t is that player's, the policy playing on after it. They
 * are appended to `played` as 'policy branch' episodes of the same task; returns each episode with
 * its branches and the turn they part at (criticPairs.ts branchPairs).
 */
export async function playBranches(
  engine: PolicyEngine,
  cfg: ForgeConfig,
  sc: SweetCriticConfig,
  played: Played,
  log: (l: string) => void,
): Promise<BranchGroup[]> {
  if (sc.branches === 0 && sc.swaps.length === 0) return [];
  const t0 = performance.now();
  const rng = new Rng(`forge/critic/branches/${cfg.seed}`);
  const roots = played.episodes.flatMap((e, i) => (played.player[i] === 'policy' && e.turns.length > 0 ? [i] : []));
  const prefixes = roots.map((i) => played.episodes[i].turns.slice(0, rng.int(played.episodes[i].turns.length)));
  const seeds = roots.map(() => Array.from({ length: sc.branches + sc.swaps.length }, () => rng.int(1_000_000_000)));
  const moves = await Promise.all(
    sc.swaps.map((kind) =>
      swapMoves(
        kind,
        roots.map((i) => played.episodes[i].task.spec),
        prefixes,
        cfg,
      ),
    ),
  );
  const slots: EpisodeSlot[] = roots.flatMap((i, r) =>
    seeds[r].map((seed, j): EpisodeSlot => {
      const slot: EpisodeSlot = { spec: played.episodes[i].task.spec, seed, prefix: prefixes[r], reseed: seed };
      return j < sc.branches ? slot : { ...slot, forced: { action: moves[j - sc.branches][r], agent: SCRIPTED } };
    }),
  );
  const agent = await PolicyBatchAgent.create(engine, { adapter: null, sampling: { temperature: 1, maxNewTokens: cfg.maxReplyTokens } });
  const eps = await runSlots(slots, agent, { phrasings: cfg.phrasings });
  const per = sc.branches + sc.swaps.length;
  const groups = roots.map((i, r): BranchGroup => {
    const members = [i];
    for (let j = 0; j < per; j++) {
      members.push(played.episodes.length);
      played.episodes.push(eps[r * per + j]);
      played.task.push(played.task[i]);
      played.player.push(BRANCH);
    }
    return { members, turn: prefixes[r].length };
  });
  const swapped = sc.swaps.length ? ` and ${sc.swaps.join(' and ')} moves there` : '';
  log(
    `[forge critic] ${eps.length} branches from one state of each of the policy's ${roots.length} episodes: ${sc.branches} re-rolls each${swapped} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
  return groups;
}

/**
 * `sc.candidateRerolls` M > 1: per branch group, every distinct candidate turn (its text at the group's
 * turn, as criticPairs.ts branchSides tells candidates apart) is played again until it has M
 * continuations: forced re-rolls that keep the turn and re-seed the environment, the policy playing on
 * (the re-roll kind of rollout/counterfactual.ts). They join the group as branch episodes, so
 * branchSides labels the candidate by the mean return of all M, as the within-state truth does.
 */
export async function playCandidateRerolls(
  engine: PolicyEngine,
  cfg: ForgeConfig,
  sc: SweetCriticConfig,
  played: Played,
  groups: BranchGroup[],
  log: (l: string) => void,
): Promise<void> {
  if (sc.candidateRerolls <= 1) return;
  const t0 = performance.now();
  const rng = new Rng(`forge/critic/rerolls/${cfg.seed}`);
  const jobs: { group: BranchGroup; from: number; slot: EpisodeSlot }[] = [];
  let candidates = 0;
  for (const group of groups) {
    const count = new Map<string, { from: number; n: number }>();
    for (const i of group.members) {
      const action = played.episodes[i].turns[group.turn].action;
      const c = count.get(action) ?? { from: i, n: 0 };
      count.set(action, { ...c, n: c.n + 1 });
    }
    candidates += count.size;
    for (const { from, n } of count.values()) {
      const e = played.episodes[from];
      const turn = e.turns[group.turn];
      for (let j = n; j < sc.candidateRerolls; j++) {
        const seed = rng.int(1_000_000_000);
        const forced = { action: turn.action, agent: agentSideOf(turn) };
        jobs.push({ group, from, slot: { spec: e.task.spec, seed, prefix: e.turns.slice(0, group.turn), reseed: seed, forced } });
      }
    }
  }
  const agent = await PolicyBatchAgent.create(engine, { adapter: null, sampling: { temperature: 1, maxNewTokens: cfg.maxReplyTokens } });
  const eps = await runSlots(
    jobs.map((j) => j.slot),
    agent,
    { phrasings: cfg.phrasings },
  );
  jobs.forEach((j, k) => {
    j.group.members.push(played.episodes.length);
    played.episodes.push(eps[k]);
    played.task.push(played.task[j.from]);
    played.player.push(BRANCH);
  });
  log(
    `[forge critic] ${eps.length} re-rolls so that each of the ${candidates} candidate turns of ${groups.length} states has ${sc.candidateRerolls} continuations (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
}

/** The move a scripted player makes after each prefix (one turn played from the replayed prefix). */
async function swapMoves(kind: 'expert' | 'random', specs: readonly TaskSpec[], prefixes: readonly Turn[][], cfg: ForgeConfig): Promise<string[]> {
  const out = new Array<string>(specs.length);
  for (const family of new Set(specs.map((s) => s.family))) {
    const at = specs.flatMap((s, r) => (s.family === family ? [r] : []));
    const eps = await runSlots(
      at.map((r) => ({
        spec: specs[r],
        seed: hashString(`forge/critic/swap/${cfg.seed}/${kind}/${r}`),
        prefix: prefixes[r],
        turnLimit: prefixes[r].length + 1,
      })),
      familyAgent(kind, family),
      { phrasings: cfg.phrasings },
    );
    at.forEach((r, j) => (out[r] = eps[j].turns[prefixes[r].length].action));
  }
  return out;
}
