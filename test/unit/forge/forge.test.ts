// The forge end to end on a tiny config (seconds): files in the Hugging Face layout, a manifest that
// verifies, loss that falls, and determinism of everything but timings; plus the pieces by hand.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageMix, validateForgeConfig, ForgeConfigError } from '../../../src/rl/forge/config.ts';
import { SMOKE_FORGE } from '../../../src/rl/forge/presets.ts';
import { runForge, type ForgeResult } from '../../../src/rl/forge/forge.ts';
import { forgeCriticOnly } from '../../../src/rl/forge/criticOnly.ts';
import { playAll, playBranches, playCandidateRerolls } from '../../../src/rl/forge/criticPlay.ts';
import { loadModel } from '../../../src/rl/model/folder/folder.ts';
import { nodeReader, nodeWriter } from '../../../src/rl/model/folder/nodeIo.ts';
import { OrtRuntime } from '../../../src/rl/runtime/ort.ts';
import { parseModelMeta } from '../../../src/rl/model/llama/config.ts';
import { DEFAULT_LORA, defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { TrainingLoop } from '../../../src/rl/algos/loop.ts';
import { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';
import { shippedAdapter } from '../../../src/rl/bridge/peft.ts';
import { openModels } from '../../../src/rl/rollout/node.ts';
import { SHIPPED_ADAPTER_ID } from '../../../src/rl/runtime/engine/adapters.ts';

let dir: string;
let dir2: string;
let result: ForgeResult;
let second: ForgeResult;
let resumed: ForgeResult;
let dir3: string;
const lines: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'forge-'));
  dir2 = await mkdtemp(join(tmpdir(), 'forge-'));
  const runtime = await OrtRuntime.create('node');
  // the refine stage trains on shorter rows than the context (a curriculum stage's seqLen)
  const cfg = { ...SMOKE_FORGE, steps: 40, evalEpisodes: 1, refine: [{ ...SMOKE_FORGE.refine[0], seqLen: 96 }] };
  result = await runForge(cfg, { write: nodeWriter(dir), runtime, log: (l) => lines.push(l), command: 'test' });
  second = await runForge(cfg, { write: nodeWriter(dir2), runtime, log: () => {}, command: 'test' });
  // a forge resumed from the policy its first stage wrote (its refine stage, critic and value head re-run)
  dir3 = await mkdtemp(join(tmpdir(), 'forge-'));
  const stage1 = await mkdtemp(join(tmpdir(), 'forge-'));
  await runForge(
    { ...cfg, refine: [], criticSteps: 0, valueSteps: 0, evalEpisodes: 0 },
    { write: nodeWriter(stage1), runtime, log: () => {}, command: 'test' },
  );
  const start = { ...(await loadModel(nodeReader(stage1), 'policy')), stagesDone: 1 };
  resumed = await runForge(cfg, { write: nodeWriter(dir3), runtime, log: () => {}, command: 'test', start });
  await rm(stage1, { recursive: true, force: true });
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(dir2, { recursive: true, force: true });
  await rm(dir3, { recursive: true, force: true });
});

describe('forge (smoke)', () => {
  it('writes policy and critic folders that load through the manifest', async () => {
    const policy = await loadModel(nodeReader(dir), 'policy');
    const critic = await loadModel(nodeReader(dir), 'critic');
    expect(policy.heads.value).toBe(false);
    expect(critic.heads.value).toBe(true);
    expect(policy.config.vocabSize).toBe(result.vocabSize);
    expect(policy.turnwise?.contextTokens).toBe(SMOKE_FORGE.seqLen);
    for (const m of ['policy', 'critic']) {
      const paths = result.manifest[m].files.map((f) => f.path);
      expect(paths).toEqual(
        expect.arrayContaining([`${m}/config.json`, `${m}/tokenizer.json`, `${m}/model.safetensors`, `${m}/onnx/prefill_q4.onnx`, `${m}/onnx/decode_q4.onnx`]),
      );
    }
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.forge.seed).toBe(SMOKE_FORGE.seed);
  });

  it('keepAnswered: the policy records its window rule in config.json (turnwise.keepAnswered); a forge without it records none', async () => {
    expect((await loadModel(nodeReader(dir), 'policy')).turnwise?.keepAnswered).toBeUndefined();
    const out = await mkdtemp(join(tmpdir(), 'forge-'));
    try {
      const cfg = { ...SMOKE_FORGE, steps: 4, refine: [], criticSteps: 0, valueSteps: 0, evalEpisodes: 0, keepAnswered: true };
      await runForge(cfg, { write: nodeWriter(out), runtime: await OrtRuntime.create('node'), log: () => {}, command: 'test' });
      expect((await loadModel(nodeReader(out), 'policy')).turnwise?.keepAnswered).toBe(true);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, keepAnswered: 'yes' as unknown as boolean })).toThrow(ForgeConfigError);
    expect(() => parseModelMeta({ keepAnswered: 'yes' })).toThrow(/keepAnswered/);
  });

  it('forges only the critic on a policy folder, whatever policy stages the config names (none of them runs)', async () => {
    const out = await mkdtemp(join(tmpdir(), 'forge-'));
    try {
      const runtime = await OrtRuntime.create('node');
      const policy = await loadModel(nodeReader(dir), 'policy');
      // stages over families outside the smoke mixture would fail validation in a whole forge
      const cfg = {
        ...SMOKE_FORGE,
        refine: [{ steps: 2, lr: 1e-3, weights: { sokoban: 1 } }],
        afterDagger: [{ steps: 2, lr: 1e-3, weights: { frontend: 1 } }],
      };
      expect(() => validateForgeConfig(cfg)).toThrow('must name families of the mixture');
      const final = { rounds: 1, episodes: 2, steps: 1, lr: 1e-3, share: 0.5, weights: { frontend: 1 } };
      expect(() => validateForgeConfig({ ...SMOKE_FORGE, finalDagger: final })).toThrow('forge: finalDagger weights must name families of the mixture');
      const finish = [{ steps: 2, lr: 1e-3, weights: { frozenlake: 1 } }];
      expect(() => validateForgeConfig({ ...SMOKE_FORGE, finish })).toThrow('forge: finish stage 1 weights must name families of the mixture');
      const r = await forgeCriticOnly({ ...cfg, finalDagger: final, finish }, policy, { write: nodeWriter(out), runtime, log: () => {}, command: 'test' });
      expect(r.phases.map((p) => p.phase)).toEqual(['critic', 'critic bradley-terry', 'value']);
      // the adapter that ships is the epoch's that ranked the held-out pairs best (the first of equals)
      const epochs = r.critic?.epochs ?? [];
      expect(epochs.length).toBe(SMOKE_FORGE.sweetCritic?.epochs);
      const best = epochs.reduce((b, e) => (e.heldOutAccuracy > b.heldOutAccuracy ? e : b));
      expect(r.critic?.keptEpoch).toBe(best.epoch);
      expect(r.manifest.policy.files.map((f) => f.sha256)).toEqual(result.manifest.policy.files.map((f) => f.sha256));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);

  it("trains on branch pairs cut after their branch turn (branchRows 'turn')", async () => {
    const out = await mkdtemp(join(tmpdir(), 'forge-'));
    try {
      const runtime = await OrtRuntime.create('node');
      const policy = await loadModel(nodeReader(dir), 'policy');
      const sweetCritic = { ...SMOKE_FORGE.sweetCritic!, branchRows: 'turn' as const, trajectoryPairs: false, epochs: 1 };
      const r = await forgeCriticOnly({ ...SMOKE_FORGE, sweetCritic }, policy, { write: nodeWriter(out), runtime, log: () => {}, command: 'test' });
      expect(r.critic?.pairs.branch).toBeGreaterThan(0);
      expect(r.critic?.pairs.train).toBe(r.critic!.pairs.branch - r.critic!.pairs.heldOut);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 60_000);

  it('re-rolls every candidate turn of a branch state until it has candidateRerolls continuations, all from the same state', async () => {
    const sc = { ...SMOKE_FORGE.sweetCritic!, branchRows: 'turn' as const, candidateRerolls: 3, tasks: 4 };
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, sweetCritic: { ...sc, branchRows: 'trajectory' } })).toThrow(/needs branchRows "turn"/);
    const engine = await openModels({ root: dir, backend: 'node', models: ['policy'] });
    try {
      const played = await playAll(engine, SMOKE_FORGE, sc, () => {});
      const groups = await playBranches(engine, SMOKE_FORGE, sc, played, () => {});
      const before = played.episodes.length;
      await playCandidateRerolls(engine, SMOKE_FORGE, sc, played, groups, () => {});
      expect(played.episodes.length).toBeGreaterThan(before);
      for (const g of groups) {
        const prefix = (i: number) => played.episodes[i].turns.slice(0, g.turn).map((t) => t.action);
        const byTurn = new Map<string, number>();
        for (const i of g.members) {
          expect(prefix(i)).toEqual(prefix(g.members[0]));
          const action = played.episodes[i].turns[g.turn].action;
          byTurn.set(action, (byTurn.get(action) ?? 0) + 1);
        }
        for (const n of byTurn.values()) expect(n).toBeGreaterThanOrEqual(3);
      }
    } finally {
      await engine.dispose();
    }
  }, 60_000);

  it("ships the critic's SWEET-RL adapter, which the engine loads as the critic's active adapter", async () => {
    const paths = result.manifest.critic.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['critic/adapter/adapter_config.json', 'critic/adapter/adapter_model.safetensors']));
    const critic = await loadModel(nodeReader(dir), 'critic');
    const adapter = shippedAdapter(critic);
    expect(adapter?.spec).toEqual(DEFAULT_LORA);
    // trained: some B matrix moved off its zero initialisation
    expect(Object.entries(adapter?.weights ?? {}).some(([n, w]) => n.includes('lora_B') && w.some((x) => x !== 0))).toBe(true);
    const engine = await openModels({ root: dir, backend: 'node', models: ['critic'] });
    try {
      expect(await engine.adapters('critic')).toEqual({ ids: [SHIPPED_ADAPTER_ID], active: SHIPPED_ADAPTER_ID });
      const ids = (await engine.encode({ text: 'is it a mammal?' }, 'critic')).slice(1);
      const item = { context: { messages: [{ role: 'system' as const, content: 'Guess the animal.' }], window: {} }, continuation: ids };
      const [active, base] = await Promise.all([
        engine.score({ model: 'critic', items: [item] }),
        engine.score({ model: 'critic', adapter: null, items: [item] }),
      ]);
      expect(active.adapter).toBe(SHIPPED_ADAPTER_ID);
      expect(active.items[0].logprobs.some((x, j) => Math.abs(x - base.items[0].logprobs[j]) > 1e-6)).toBe(true);
    } finally {
      await engine.dispose();
    }
  });

  it("starts a SWEET-RL run's critic from that adapter, its value-head delta (which a PEFT adapter lacks) at zero", async () => {
    const engine = new PolicyEngine();
    await engine.init('node');
    try {
      const read = nodeReader(dir);
      const load = async (name: string) => {
        await engine.loadFrom(name, { kind: 'reader', read, manifest: true, name });
        return engine.loadedModel(name);
      };
      const models = { policy: await load('policy'), critic: await load('critic') };
      const config = defaultLoopConfig('sweet', 'guess', { seed: 1, tasksPerIteration: 1, k: 2 });
      const loop = await TrainingLoop.create({ engine, runtime: engine.sharedRuntime(), models, config });
      const shipped = shippedAdapter(models.critic)!.weights;
      const start = loop.adapter('critic').weights;
      for (const [n, w] of Object.entries(shipped)) expect(Array.from(start[n])).toEqual(Array.from(w));
      const heads = Object.keys(start).filter((n) => n.startsWith('v_head'));
      expect(heads.length).toBeGreaterThan(0);
      for (const n of heads) expect(start[n].every((x) => x === 0)).toBe(true);
      await loop.dispose();
    } finally {
      await engine.dispose();
    }
  });

  it('checkpoints the policy after every stage it may resume after, with the options each family is forged on', async () => {
    const mix = [{ family: 'guess' as const, weight: 1, options: { candidates: 4, maxTurns: 3 } }];
    const cfg = {
      ...SMOKE_FORGE,
      mix,
      steps: 2,
      refine: [{ steps: 2, lr: 1e-3, weights: { guess: 1 } }],
      criticSteps: 0,
      valueSteps: 0,
      evalEpisodes: 0,
      sweetCritic: null,
    };
    const seen: { stage: number; tasks: unknown }[] = [];
    const out = await mkdtemp(join(tmpdir(), 'forge-'));
    try {
      const runtime = await OrtRuntime.create('node');
      const checkpoint = async (stage: number, policy: { turnwise?: { tasks?: unknown } }) => void seen.push({ stage, tasks: policy.turnwise?.tasks });
      await runForge(cfg, { write: nodeWriter(out), runtime, log: () => {}, command: 'test', checkpoint });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
    expect(seen).toEqual([1, 2].map((stage) => ({ stage, tasks: { guess: { candidates: 4, maxTurns: 3 } } })));
  }, 60_000);

  it('lowers the policy loss and prints progress lines', () => {
    const p = result.phases.find((x) => x.phase === 'policy');
    expect(p && p.lastLoss < p.firstLoss).toBe(true);
    expect(lines.filter((l) => l.startsWith('[forge policy] step')).length).toBe(40 / SMOKE_FORGE.logEvery);
    expect(result.heldOut.map((r) => r.agent)).toContain('policy-sampled');
  });

  it('runs the refine stages after the first, each with its own steps', () => {
    expect(result.phases.map((p) => [p.phase, p.steps])).toEqual([
      ['policy', 40],
      ['policy stage 2', SMOKE_FORGE.refine[0].steps],
      ['critic', SMOKE_FORGE.criticSteps],
      ['critic bradley-terry', result.phases[3].steps],
      ['value', SMOKE_FORGE.valueSteps],
    ]);
    const sc = SMOKE_FORGE.sweetCritic;
    if (!sc || !result.critic) throw new Error('the smoke forge runs the SWEET-RL critic phase');
    expect(result.critic.epochs).toHaveLength(sc.epochs);
    expect(result.critic.pairs.train).toBeGreaterThan(0);
    expect(result.phases[3].steps).toBe(sc.epochs * Math.ceil(result.critic.pairs.train / sc.pairBatch));
    expect(lines).toContain('[forge] policy stage 2: 4 steps at lr 0.001; families guess 1; rows of 96 tokens');
    expect(result.phases[1].tokens).toBeGreaterThan(0);
  });

  it('is deterministic from its seed: same weights, same files', () => {
    for (const m of ['policy', 'critic']) {
      const a = result.manifest[m].files.map((f) => [f.path, f.sha256]);
      const b = second.manifest[m].files.map((f) => [f.path, f.sha256]);
      expect(b).toEqual(a);
    }
  });

  it('resumed after stage 1 from the policy that stage wrote, it writes the same files as the whole forge', () => {
    expect(resumed.phases.map((p) => p.phase)).toEqual(['policy stage 2', 'critic', 'critic bradley-terry', 'value']);
    for (const m of ['policy', 'critic']) {
      expect(resumed.manifest[m].files.map((f) => [f.path, f.sha256])).toEqual(result.manifest[m].files.map((f) => [f.path, f.sha256]));
    }
  });
});

describe('forge config', () => {
  it('names the offending field', () => {
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, dFf: 60 })).toThrow(ForgeConfigError);
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, dFf: 60 })).toThrow('must be multiples of 32');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, mix: [] })).toThrow('the family mixture is empty');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, steps: 0 })).toThrow('forge: steps must be a positive integer, got 0');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, refine: [{ steps: 5, lr: 1e-3, weights: { sokoban: 1 } }] })).toThrow(
      'forge: refine stage 1 weights must name families of the mixture (guess, bandit) with shares > 0',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, refine: [{ steps: 0, lr: 1e-3, weights: { guess: 1 } }] })).toThrow('refine stage 1 needs steps > 0');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, afterDagger: [{ steps: 5, lr: 1e-3, weights: { frontend: 1 } }] })).toThrow(
      'forge: afterDagger stage 1 weights must name families of the mixture',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, afterDagger: [{ steps: 5, lr: 1e-3, weights: { guess: 1 }, expertShare: 2 }] })).toThrow(
      'forge: expertShare must lie in [0, 1]',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, finish: [{ steps: 5, lr: 1e-3, weights: { sokoban: 1 } }] })).toThrow(
      'forge: finish stage 1 weights must name families of the mixture',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, finish: [{ steps: 5, lr: 1e-3, weights: { guess: 1 }, seqLen: 8 }] })).toThrow(
      "forge: a stage's seqLen must be a whole number",
    );
    const rounds = { rounds: 1, episodes: 4, steps: 2, lr: 1e-3, share: 0.5 };
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, finalDagger: { ...rounds, weights: { frontend: 1 } } })).toThrow(
      'forge: finalDagger weights must name families of the mixture (guess, bandit) with shares > 0',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, finalDagger: { ...rounds, rounds: 0 } })).toThrow('forge: finalDagger needs whole rounds');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, dagger: { ...rounds, weights: { guess: 0 } } })).toThrow('forge: dagger weights must name families');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, refine: [{ steps: 5, lr: 1e-3, weights: { guess: 1 }, noise: { bandit: 1.5 } }] })).toThrow(
      'forge: refine stage 1 noise must name families of the mixture with rates in [0, 1]',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, refine: [{ steps: 5, lr: 1e-3, weights: { guess: 1 }, noise: { sokoban: 0.1 } }] })).toThrow(
      'refine stage 1 noise must name',
    );
  });

  it('checks the expert share and the DAgger rounds', () => {
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, expertShare: 1.5 })).toThrow('forge: expertShare must lie in [0, 1]');
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, dagger: { rounds: 1, episodes: 8, steps: 2, lr: 1e-3, share: 0.5, expertShare: -0.1 } })).toThrow(
      'forge: expertShare must lie in [0, 1]',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, dagger: { rounds: 0, episodes: 8, steps: 2, lr: 1e-3, share: 0.5 } })).toThrow(
      'forge: dagger needs whole rounds, episodes and steps > 0, lr > 0 and share in [0, 1]',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, dagger: { rounds: 1, episodes: 8, steps: 2, lr: 1e-3, share: 2 } })).toThrow('share in [0, 1]');
  });

  it('checks which pairs the SWEET-RL critic trains on', () => {
    const sc = SMOKE_FORGE.sweetCritic!;
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, sweetCritic: { ...sc, trajectoryPairs: 'no' as unknown as boolean } })).toThrow(
      'forge: sweetCritic.trajectoryPairs must be true or false, got "no"',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, sweetCritic: { ...sc, trajectoryPairs: false, branches: 0, swaps: [] } })).toThrow(
      'needs branches > 0 or swaps',
    );
    expect(validateForgeConfig({ ...SMOKE_FORGE, sweetCritic: { ...sc, trajectoryPairs: false } }).sweetCritic?.trajectoryPairs).toBe(false);
  });

  it("a refine stage keeps the mixture's options and takes its own shares", () => {
    const cfg = {
      ...SMOKE_FORGE,
      mix: [
        { family: 'guess' as const, weight: 0.9, options: { candidates: 4 } },
        { family: 'bandit' as const, weight: 0.1 },
      ],
    };
    expect(stageMix(cfg, { bandit: 0.7, guess: 0.3 })).toEqual([
      { family: 'guess', weight: 0.3, options: { candidates: 4 } },
      { family: 'bandit', weight: 0.7 },
    ]);
    expect(stageMix(cfg, { bandit: 1 })).toEqual([{ family: 'bandit', weight: 1 }]);
    expect(stageMix(cfg, undefined)).toEqual(cfg.mix);
  });

  it("checks a curriculum: the first stage's shares and every stage's row length", () => {
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, firstStage: { weights: { sokoban: 1 } } })).toThrow(
      'forge: firstStage.weights must name families of the mixture (guess, bandit) with shares > 0',
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, firstStage: { seqLen: SMOKE_FORGE.seqLen * 2 } })).toThrow(
      `a stage's seqLen must be a whole number in [16, ${SMOKE_FORGE.seqLen}]`,
    );
    expect(() => validateForgeConfig({ ...SMOKE_FORGE, refine: [{ steps: 5, lr: 1e-3, weights: { guess: 1 }, seqLen: 8 }] })).toThrow("a stage's seqLen");
    const ok = validateForgeConfig({ ...SMOKE_FORGE, firstStage: { weights: { guess: 1 }, seqLen: 64 } });
    expect(ok.firstStage).toEqual({ weights: { guess: 1 }, seqLen: 64 });
  });
});
