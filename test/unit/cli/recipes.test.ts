// The Python recipes (recipes/) on the lab's own exports, run for real where python3 has the packages
// they need, and skipped with the missing packages named where it does not (this repository's
// machines and CI reach no Python package index, so there they skip). The fixture is what a user makes:
// `passkt --out` → `credit --out` → `export-model --adapter init:1 --data` of the shipped policy and
// critic. Then: every export loads in datasets / pyarrow / pandas (and the pairs in TRL's chat
// template), TRL SFT and DPO train 2 steps on the CPU from the export's adapter, prepare_data.py
// writes a non-empty validation split from train-only episodes, and the critic's value head matches
// the lab's numbers.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { capture } from '../capture.ts';
import { because } from '../../support/skip.ts';

const PYTHON = process.env.PYTHON ?? 'python3';
const RECIPES = join(process.cwd(), 'recipes');

/** Python modules of `mods` that python3 cannot import (all of them when there is no python3). */
function missing(mods: string[]): string[] {
  const r = spawnSync(PYTHON, ['-c', `import importlib.util as u, sys; print(",".join(m for m in sys.argv[1:] if u.find_spec(m) is None))`, ...mods], {
    encoding: 'utf8',
  });
  if (r.status !== 0) return mods;
  return r.stdout
    .trim()
    .split(',')
    .filter((m) => m !== '');
}

const TRAIN = ['torch', 'transformers', 'peft', 'trl', 'datasets', 'accelerate'];
const LOAD = ['datasets', 'pyarrow', 'pandas'];
const lackTrain = missing(TRAIN);
const lackLoad = missing(LOAD);
const why = (lack: string[]) => (lack.length ? ` (skipped: ${PYTHON} lacks ${lack.join(', ')}; pip install -r recipes/requirements.txt)` : '');

function py(script: string, args: string[], timeout = 240_000): string {
  const r = spawnSync(PYTHON, [join(RECIPES, script), ...args], {
    cwd: RECIPES,
    encoding: 'utf8',
    timeout,
    env: { ...process.env, TOKENIZERS_PARALLELISM: 'false', OMP_NUM_THREADS: '2' },
  });
  const out = `${r.stdout}\n${r.stderr}`;
  expect(r.status, `${script} ${args.join(' ')}\n${out.slice(-4000)}`).toBe(0);
  return out;
}

let dir = '';
let policy = '';
let critic = '';

async function cli(args: string[]): Promise<void> {
  const { code } = await capture(() => main([...args, '--json']));
  expect(code, args.join(' ')).toBe(0);
}

if (lackLoad.length || lackTrain.length)
  console.warn(`recipes.test.ts: Python checks skipped where ${PYTHON} lacks ${[...new Set([...lackLoad, ...lackTrain])].join(', ')}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-recipes-'));
  const played = join(dir, 'played.jsonl');
  const credited = join(dir, 'credited.jsonl');
  // train split only, so prepare_data.py has to hold validation tasks out itself
  await cli(['passkt', '--family', 'guess', '--agent', 'noisy', '--split', 'train', '--n', '4', '--tasks', '3', '--out', played]);
  await cli(['credit', '--in', played, '--out', credited]);
  policy = join(dir, 'policy');
  critic = join(dir, 'critic');
  await cli(['export-model', '--model', 'public/models/policy', '--adapter', 'init:1', '--data', credited, '--no-onnx', '--out', policy]);
  await cli(['export-model', '--model', 'public/models/critic', '--no-onnx', '--out', critic]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the critic export', () => {
  it('carries the value head and its values at every position for critic_value.py to compare', () => {
    const check = JSON.parse(readFileSync(join(critic, 'turnwise_check.json'), 'utf8')) as { input_ids: number[]; base: { values?: number[] } };
    expect(check.base.values).toHaveLength(check.input_ids.length);
    expect(check.base.values?.every(Number.isFinite)).toBe(true);
    const policyCheck = JSON.parse(readFileSync(join(policy, 'turnwise_check.json'), 'utf8')) as { base: { values?: number[] } };
    expect(policyCheck.base.values).toBeUndefined(); // the policy has no value head
  });
});

describe("recipes on the lab's exports", () => {
  it.skipIf(lackLoad.length > 0)(
    `every export loads in datasets, pyarrow and pandas${why(lackLoad)}`,
    because(`${PYTHON} lacks ${lackLoad.join(', ')}; pip install -r recipes/requirements.txt`),
    () => {
      const data = join(policy, 'data');
      const files = readdirSync(data)
        .filter((f) => !f.endsWith('.sweet.jsonl'))
        .map((f) => join(data, f));
      const out = py('check_datasets.py', [...files, ...(lackTrain.length ? [] : ['--model', policy])]);
      expect(out).not.toContain('FAILED');
    },
  );

  it.skipIf(lackLoad.length > 0)(
    `prepare_data.py writes a non-empty validation split from train-only episodes${why(lackLoad)}`,
    because(`${PYTHON} lacks ${lackLoad.join(', ')}; pip install -r recipes/requirements.txt`),
    () => {
      const out = py('verl/prepare_data.py', ['--episodes', join(policy, 'data', 'episodes.parquet'), '--out', join(dir, 'verl')]);
      expect(out).toMatch(/holding out 1 of the train tasks/);
      expect(out).toMatch(/test: 1 tasks/);
      expect(existsSync(join(dir, 'verl', 'test.parquet'))).toBe(true);
      // each row hands its task's T (the prompt's "You have N turns.") to the interaction, and sizes.json sizes run_grpo.sh's batch
      const check = [
        'import json, sys, pandas as pd',
        'df = pd.read_parquet(sys.argv[1])',
        'bad = [i for i, r in df.iterrows() if f"You have {r.extra_info[\'interaction_kwargs\'][\'max_turns\']} turns." not in r.prompt[0]["content"]]',
        'print(json.dumps({"rows": len(df), "bad": bad}))',
      ].join('\n');
      const r = spawnSync(PYTHON, ['-c', check, join(dir, 'verl', 'train.parquet')], { encoding: 'utf8' });
      expect(JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}'), r.stderr).toMatchObject({ bad: [] });
      expect(JSON.parse(readFileSync(join(dir, 'verl', 'sizes.json'), 'utf8'))).toMatchObject({ train: 2, test: 1 });
    },
  );

  it.skipIf(lackTrain.length > 0)(
    `TRL SFT and DPO train 2 steps on the CPU from the export's adapter${why(lackTrain)}`,
    because(`${PYTHON} lacks ${lackTrain.join(', ')}; pip install -r recipes/requirements.txt`),
    () => {
      const sft = join(dir, 'runs', 'sft');
      // the README's filter (solved episodes only)
      py('trl_sft.py', [
        '--model',
        policy,
        '--data',
        join(policy, 'data', 'episodes.chat.jsonl'),
        '--success-only',
        '--out',
        sft,
        '--cpu',
        '--max-steps',
        '2',
        '--batch',
        '1',
      ]);
      expect(existsSync(join(sft, 'adapter_model.safetensors'))).toBe(true);
      const dpo = join(dir, 'runs', 'dpo');
      py('trl_dpo.py', [
        '--model',
        policy,
        '--pairs',
        join(policy, 'data', 'episodes.turn-dpo.jsonl'),
        '--out',
        dpo,
        '--cpu',
        '--max-steps',
        '2',
        '--batch',
        '1',
      ]);
      expect(existsSync(join(dpo, 'adapter_model.safetensors'))).toBe(true);
      py('check_export.py', ['--model', policy]);
    },
  );

  it.skipIf(lackTrain.length > 0)(
    `the critic's value head loads and matches the lab's values${why(lackTrain)}`,
    because(`${PYTHON} lacks ${lackTrain.join(', ')}; pip install -r recipes/requirements.txt`),
    () => {
      expect(py('critic_value.py', ['--model', critic])).toMatch(/value head: .* -> ok/);
    },
  );
});
