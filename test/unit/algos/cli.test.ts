// `turnwise train` on the shipped models (onnxruntime-web wasm): one small GRPO iteration on bandit
// with --json (per-iteration metrics, held-out evaluation before and after) and --out (the trained
// policy adapter as PEFT files that import back, B moved off zero); bad flags name themselves.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/command.ts';
import { train } from '../../../src/cli/commands/train.ts';
import { modelsDir } from '../../../src/cli/paths.ts';
import { PAIRWISE_LR } from '../../../src/rl/algos/algoSettings.ts';
import type { IterationReport } from '../../../src/rl/algos/types.ts';
import { importPeftAdapter } from '../../../src/rl/bridge/peft.ts';
import { loadModel } from '../../../src/rl/model/folder/folder.ts';
import { nodeReader } from '../../../src/rl/model/folder/nodeIo.ts';
import { capture } from '../capture.ts';

const out = mkdtempSync(join(tmpdir(), 'turnwise-train-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

interface HeldOut {
  sampled: Record<string, number>;
  greedy: Record<string, number>;
  perTask: Record<'sampled' | 'greedy', number[]>;
}

interface TrainJson {
  command: string;
  config: { lr: number; criticLr: number };
  evaluation: {
    split: string;
    tasks: number;
    before: HeldOut;
    after: HeldOut;
    gain: Record<'sampled' | 'greedy', { estimate: number; low: number; high: number }>;
  };
  reports: IterationReport[];
}

async function json(args: string[]): Promise<TrainJson> {
  const { code, out } = await capture(() => train.run([...args, '--json']));
  expect(code).toBe(0);
  return JSON.parse(out) as TrainJson;
}

describe('turnwise train', () => {
  it('prints per-iteration metrics and the evaluation before and after, and writes a PEFT adapter', async () => {
    const r = await json([
      '--algo',
      'grpo',
      '--family',
      'bandit',
      '--iterations',
      '1',
      '--tasks',
      '2',
      '--k',
      '4',
      '--eval',
      '4',
      '--backend',
      'wasm',
      '--out',
      out,
    ]);
    expect(r.reports).toHaveLength(1);
    for (const k of ['reward_mean', 'reward_spread', 'success', 'entropy', 'kl_ref', 'grad_norm', 'response_length', 'clip_frac'])
      expect(Number.isFinite(r.reports[0].metrics[k]), k).toBe(true);
    expect(r.evaluation).toMatchObject({ split: 'test', tasks: 4 });
    // one episode on each of the 4 held-out tasks: success is a count of them over 4
    for (const e of [r.evaluation.before, r.evaluation.after])
      for (const mode of ['sampled', 'greedy'] as const) expect([0, 0.25, 0.5, 0.75, 1], `${mode} success ${e[mode].success}`).toContain(e[mode].success);
    // the gain pairs the same 4 tasks: its estimate is the mean of the per-task differences, inside its interval
    for (const mode of ['sampled', 'greedy'] as const) {
      const [b, a] = [r.evaluation.before.perTask[mode], r.evaluation.after.perTask[mode]];
      expect(b).toHaveLength(4);
      expect(b.reduce((s, x) => s + x, 0) / 4).toBeCloseTo(r.evaluation.before[mode].success, 9);
      const g = r.evaluation.gain[mode];
      expect(g.estimate).toBeCloseTo(a.reduce((s, x, i) => s + x - b[i], 0) / 4, 9);
      expect(g.low).toBeLessThanOrEqual(g.estimate);
      expect(g.high).toBeGreaterThanOrEqual(g.estimate);
    }
    expect(r.command).toContain('--algo grpo');
    const policy = await loadModel(nodeReader(modelsDir()), 'policy');
    const files = {
      adapter_config: readFileSync(join(out, 'adapter_config.json'), 'utf8'),
      adapter_model: new Uint8Array(readFileSync(join(out, 'adapter_model.safetensors'))),
    };
    const config = JSON.parse(files.adapter_config) as { r: number; lora_alpha: number; peft_type: string };
    expect(config).toMatchObject({ r: 8, lora_alpha: 16, peft_type: 'LORA' });
    const adapter = importPeftAdapter(policy.config, { config: files.adapter_config, weights: files.adapter_model });
    // B starts at zero; one update moves it
    expect(Object.entries(adapter.weights).some(([n, w]) => n.includes('lora_B') && w.some((x) => x !== 0))).toBe(true);
  }, 120_000);

  it('steps mtdpo at the pairwise default lr unless --lr says otherwise', async () => {
    const small = ['--family', 'bandit', '--iterations', '0', '--eval', '0', '--backend', 'wasm'];
    expect((await json(['--algo', 'mtdpo', ...small])).config).toMatchObject({ lr: PAIRWISE_LR });
    expect((await json(['--algo', 'mtdpo', '--lr', '3e-4', ...small])).config).toMatchObject({ lr: 3e-4 });
  }, 60_000);

  it('names a bad algorithm, family or learning rate', async () => {
    await expect(train.run(['--algo', 'ppo2', '--family', 'bandit'])).rejects.toThrow(UsageError);
    await expect(train.run(['--algo', 'grpo', '--family', 'chess'])).rejects.toThrow(/--family must be one of/);
    await expect(train.run(['--algo', 'grpo', '--family', 'bandit', '--lr', '2'])).rejects.toThrow(/--lr must be in \(0, 1\)/);
  });
});
