// The parts of the Python recipes that need only python3's standard library, run here on the lab's own
// episodes (test/unit/cli/recipes.test.ts runs the rest where Python has the training packages):
// - issue 48.1: the SFT filter recipes/README.md documents keeps episodes of a real guess export
//   (a solved guess episode earns at most 0.99, so `--min-reward 1` kept none), and trl_sft.py stops
//   with the reason, before importing torch, when a filter keeps nothing.
// - issue 48.2: requirements.txt gives ranges whose lower ends are constraints-oldest.txt's pins.
// - issue 48.6: an export's adapter names its base by an absolute path (export-model was given a
//   relative --out), and recipes/common.py re-points a loaded adapter at the folder it loaded the base from.
// - issue 48.5: the Python snippets of recipes/README.md parse, import only names the recipes define,
//   and never take apply_chat_template(..., return_tensors=...) as a tensor (transformers 5 returns a
//   BatchEncoding) — the same holds in every recipe.
// - issue 48.3: the veRL interaction's collaborator (recipes/verl/turnwise_guess.py) replies, scores
//   and ends turns as the lab's guess environment does, word for word, on episodes the lab's own
//   environment plays (every kind of message, several streams, turn limits and noise levels).
//   prepare_data.py hands each task's options (exported in the Parquet's extra_info.options) to it.
// - issue 48.4: run_grpo.sh sizes veRL's batches to the prepared tasks (batch_sizes.py; DRY_RUN=1
//   prints the veRL command), and stops with the reason when no batch can be formed.
// The Python checks are skipped, saying so, where there is no python3.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { GuessEnv } from '../../../src/rl/envs/guess/env.ts';
import { ATTRIBUTES, ITEMS } from '../../../src/rl/envs/guess/table.ts';
import type { JsonObject } from '../../../src/rl/envs/types.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
import { capture } from '../capture.ts';

const PYTHON = process.env.PYTHON ?? 'python3';
const RECIPES = join(process.cwd(), 'recipes');
const hasPython = spawnSync(PYTHON, ['-c', 'import sys; sys.exit(sys.version_info < (3, 9))']).status === 0;
const why = hasPython ? '' : ` (skipped: no ${PYTHON} 3.9+)`;

/** Runs a recipe with python3 from recipes/; its exit code and its stdout and stderr together. */
function py(args: string[], cwd = RECIPES): { status: number | null; out: string } {
  const r = spawnSync(PYTHON, args, { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

async function cli(args: string[]): Promise<void> {
  const { code } = await capture(() => main([...args, '--json']));
  expect(code, args.join(' ')).toBe(0);
}

/** The shell command of recipes/README.md that starts with `start`, its continuation lines joined, split into words. */
function readmeCommand(start: string): string[] {
  const text = readFileSync(join(RECIPES, 'README.md'), 'utf8').replace(/\\\n\s*/g, ' ');
  const line = text.split('\n').find((l) => l.trim().startsWith(start));
  if (!line) throw new Error(`recipes/README.md has no command starting with "${start}"`);
  return line.replace(/#.*$/, '').trim().split(/\s+/);
}

let dir = '';
let chat = '';
let policy = '';
let played = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'turnwise-recipes-stdlib-'));
  played = join(dir, 'played.jsonl');
  const credited = join(dir, 'credited.jsonl');
  chat = join(dir, 'episodes.chat.jsonl');
  // the README's step 1 in small: guess episodes of the shipped task options (turn costs on), credited
  await cli(['passkt', '--family', 'guess', '--agent', 'noisy', '--split', 'train', '--n', '4', '--tasks', '5', '--out', played]);
  await cli(['credit', '--in', played, '--estimators', 'mc,grpo', '--out', credited]);
  await cli(['export', '--in', credited, '--format', 'chat', '--out', chat]);
  // --out relative to the working directory, as the README writes it (export/policy)
  policy = join(dir, 'policy');
  await cli([
    'export-model',
    '--model',
    'public/models/policy',
    '--adapter',
    'init:1',
    '--data',
    credited,
    '--no-onnx',
    '--out',
    relative(process.cwd(), policy),
  ]);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('trl_sft.py episode filter (issue 48.1)', () => {
  const rows = () =>
    readFileSync(chat, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { reward: number | null; success: boolean | null });

  it('a solved guess episode earns less than 1: turn costs bound the reward', () => {
    const eps = rows();
    expect(eps.some((e) => e.success === true)).toBe(true);
    expect(Math.max(...eps.map((e) => e.reward ?? -Infinity))).toBeLessThan(1);
  });

  it.skipIf(!hasPython)(`the README's SFT command keeps the solved episodes${why}`, () => {
    const words = readmeCommand('python trl_sft.py');
    // the README's paths are relative to recipes/; point them at this test's export
    const args = words.slice(1).map((w) => (w.endsWith('episodes.chat.jsonl') ? chat : w.startsWith('../') ? join(dir, w.slice(3)) : w));
    const r = py([...args, '--count']);
    expect(r.status, r.out).toBe(0);
    const solved = rows().filter((e) => e.success === true).length;
    const m = /kept (\d+) of (\d+) episodes/.exec(r.out);
    expect(m, r.out).not.toBeNull();
    expect(Number(m?.[1])).toBeGreaterThan(0);
    if (words.includes('--success-only')) expect(Number(m?.[1])).toBe(solved);
    expect(Number(m?.[2])).toBe(rows().length);
  });

  it.skipIf(!hasPython)(`a filter that keeps nothing stops with the reason, before torch is imported${why}`, () => {
    const r = py([join(RECIPES, 'trl_sft.py'), '--model', dir, '--data', chat, '--out', join(dir, 'sft'), '--min-reward', '1']);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/kept 0 of \d+ episodes \(filters: reward >= 1\)/);
    expect(r.out).toMatch(/nothing to train on: no episode passes the filters: the best reward is 0\.\d+ < --min-reward 1 .*--success-only/);
    expect(r.out).not.toMatch(/Traceback|ModuleNotFoundError/);
  });
});

describe('the exported adapter names its base (issue 48.6)', () => {
  it('by an absolute path to the export folder, whatever --out was relative to', () => {
    const conf = JSON.parse(readFileSync(join(policy, 'adapter', 'adapter_config.json'), 'utf8')) as { base_model_name_or_path: string };
    expect(isAbsolute(conf.base_model_name_or_path)).toBe(true);
    expect(conf.base_model_name_or_path).toBe(resolve(policy));
    expect(existsSync(join(conf.base_model_name_or_path, 'config.json'))).toBe(true);
  });

  it.skipIf(!hasPython)(`recipes/common.py re-points a loaded adapter at the base folder it loaded${why}`, () => {
    const code = [
      'import json, sys, types',
      'from common import record_base',
      'm = types.SimpleNamespace(peft_config={"default": types.SimpleNamespace(base_model_name_or_path="export/policy")})',
      'print(json.dumps([record_base(m, sys.argv[1]), m.peft_config["default"].base_model_name_or_path]))',
    ].join('\n');
    const r = py(['-c', code, relative(RECIPES, policy)]);
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n')[0])).toEqual([resolve(policy), resolve(policy)]);
  });
});

describe("the README's Python snippets (issue 48.5)", () => {
  it.skipIf(!hasPython)(`parse, import names the recipes define, and ask apply_chat_template for a dict when they ask for tensors${why}`, () => {
    const readme = readFileSync(join(RECIPES, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks.length).toBeGreaterThan(0);
    const recipes = ['critic_value.py', 'check_export.py', 'common.py', 'trl_sft.py', 'trl_dpo.py', 'merge_adapter.py', 'check_datasets.py'];
    // ast only: nothing is imported, so no torch is needed
    const code = [
      'import ast, json, sys',
      'snippets, files = json.loads(sys.argv[1]), sys.argv[2:]',
      'problems = []',
      'defined = {f[:-3]: {n.name for n in ast.parse(open(f).read()).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))} for f in files}',
      'def calls(tree, where):',
      '    for n in ast.walk(tree):',
      '        if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "apply_chat_template":',
      '            kw = {k.arg: k.value for k in n.keywords}',
      '            if "return_tensors" in kw and not (isinstance(kw.get("return_dict"), ast.Constant) and kw["return_dict"].value is True):',
      '                problems.append(f"{where}:{n.lineno}: apply_chat_template(return_tensors=...) without return_dict=True")',
      'for i, src in enumerate(snippets):',
      '    tree = ast.parse(src)',
      '    calls(tree, f"README snippet {i + 1}")',
      '    for n in ast.walk(tree):',
      '        if isinstance(n, ast.ImportFrom) and n.module in defined:',
      '            problems += [f"README snippet {i + 1}: {n.module} has no {a.name}" for a in n.names if a.name not in defined[n.module]]',
      'for f in files:',
      '    calls(ast.parse(open(f).read()), f)',
      'print(json.dumps(problems))',
    ].join('\n');
    const r = py(['-c', code, JSON.stringify(blocks), ...recipes]);
    expect(r.status, r.out).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n')[0])).toEqual([]);
  });
});

interface ReplayEpisode {
  split: 'train' | 'test';
  seed: number;
  stream: number;
  options: JsonObject;
  hidden: JsonObject;
  turns: { message: string; reply: string; reward: number; done: boolean }[];
}

/** A message of every kind the collaborator reads, drawn from `rng` (names: the task's candidates). */
function labMessage(rng: Rng, names: string[]): string {
  const a = rng.pick(ATTRIBUTES);
  const kinds = [
    () => a.question, // canonical
    () => a.question, // canonical again (repeated questions cost more)
    () => `Hmm, ${a.question.toUpperCase()}`,
    () => rng.pick(['does it have fur', 'Is it furry?', 'can it fly', 'Is it a pet?', 'does it lay eggs?', 'is it nocturnal?', 'Does it live in Africa?']), // one keyword
    () => rng.pick(['is it blue?', 'is it a furry bird?', 'what does it eat?']), // no keyword, or two: unknown
    () => rng.pick(['hello', 'I am thinking.', 'guess: unicorn', '']), // invalid
    () => `guess: ${rng.pick(names)}`,
    () => `I guess it is the ${rng.pick(ITEMS).name}`,
    () => `does it\u0001 have\tfur?`, // control characters are cleaned before reading
    () => 'x'.repeat(501), // over the 500-character limit
  ];
  return kinds[rng.int(kinds.length)]();
}

/** Episodes the lab's guess environment plays against scripted messages: every message, reply, reward and end. */
function labGuessEpisodes(): ReplayEpisode[] {
  const settings: JsonObject[] = [
    {},
    { maxTurns: 4 },
    { maxTurns: 3, candidates: 4 },
    { maxTurns: 6, turnCost: 0.02, uselessCost: 0.1 },
    { maxTurns: 4, noise: 0.3 },
  ];
  const out: ReplayEpisode[] = [];
  const rng = new Rng('recipes-replay');
  for (const [i, options] of settings.entries()) {
    for (let seed = 0; seed < 8; seed++) {
      const split = seed % 3 === 2 ? 'test' : 'train';
      const stream = seed % 4;
      const env = new GuessEnv();
      const task = env.reset({ family: 'guess', split, seed: 100 * i + seed, options, stream });
      const names = (task.hidden as { candidates: string[] }).candidates;
      const turns: ReplayEpisode['turns'] = [];
      for (let done = false; !done;) {
        const message = labMessage(rng, names);
        const r = env.step(message);
        turns.push({ message, reply: r.observation, reward: r.reward, done: r.done });
        done = r.done;
      }
      out.push({ split, seed: 100 * i + seed, stream, options: task.spec.options ?? {}, hidden: task.hidden as JsonObject, turns });
    }
  }
  return out;
}

describe("the veRL interaction replays the lab's guess episodes (issue 48.3)", () => {
  const episodes = labGuessEpisodes();
  const fixture = () => join(dir, 'guess-replay.json');

  it('the episodes cover the wordings, the turn limits and every kind of turn', () => {
    const replies = episodes.flatMap((e) => e.turns.map((t) => t.reply));
    for (const phrase of [
      'Yes, that is right.',
      'No, it is not.',
      'I am not sure.',
      'Please ask',
      'too long',
      'No turns left.',
      'Correct!',
      'Wrong.',
      'Turns left: 3.',
    ]) {
      expect(
        replies.some((r) => r.includes(phrase)),
        phrase,
      ).toBe(true);
    }
    // tasks of 4 turns say so in their options (which prepare_data.py passes on as max_turns)
    expect(episodes.some((e) => e.options.maxTurns === 4 && e.turns.length === 4)).toBe(true);
  });

  it.skipIf(!hasPython)(`turnwise_guess.py gives the lab's reply, reward and end on every turn${why}`, () => {
    writeFileSync(fixture(), JSON.stringify({ episodes }));
    const r = py([join(RECIPES, 'verl', 'check_interaction.py'), fixture()]);
    const turns = episodes.reduce((n, e) => n + e.turns.length, 0);
    expect(r.out).toContain(`${turns} of ${turns} turns agree over ${episodes.length} episodes`);
    expect(r.status, r.out).toBe(0);
  });

  it.skipIf(!hasPython)(`through the veRL interaction's API (a stand-in BaseInteraction), with the kwargs prepare_data.py writes${why}`, () => {
    // verl.interactions.base as veRL defines the class (its constructor keeps the config); nothing else of veRL is used
    const stub = join(dir, 'verl-stub', 'verl', 'interactions');
    mkdirSync(stub, { recursive: true });
    writeFileSync(join(dir, 'verl-stub', 'verl', '__init__.py'), '');
    writeFileSync(join(stub, '__init__.py'), '');
    writeFileSync(join(stub, 'base.py'), 'class BaseInteraction:\n    def __init__(self, config):\n        self.config = config\n');
    const code = [
      'import asyncio, json, sys',
      'sys.path[:0] = [sys.argv[2], "verl"]',
      'from turnwise_interaction import TurnwiseGuessInteraction',
      'async def main():',
      '    it = TurnwiseGuessInteraction({"max_turns": 5})',
      '    agree = total = solved = 0',
      '    for e in json.load(open(sys.argv[1]))["episodes"]:',
      '        o = {"maxTurns": 5, "turnCost": 0.01, "uselessCost": 0.05, "noise": 0, **e["options"]}',
      '        kwargs = {"name": "turnwise_guess", "ground_truth": json.dumps(e["hidden"]), "max_turns": o["maxTurns"], "turn_cost": o["turnCost"],',
      '                  "useless_cost": o["uselessCost"], "noise": o["noise"], "split": e["split"], "seed": e["seed"], "stream": e["stream"]}',
      '        iid = await it.start_interaction("r1", **kwargs)',
      '        messages = []',
      '        for t in e["turns"]:',
      '            messages += [{"role": "assistant", "content": t["message"]}]',
      '            done, reply, score, info = await it.generate_response(iid, messages)',
      '            messages += [{"role": "user", "content": reply}]',
      '            total += 1',
      '            agree += (done, reply, score) == (t["done"], t["reply"], t["reward"])',
      '        solved += await it.calculate_score(iid) == 1.0',
      '        await it.finalize_interaction(iid)',
      '    print(json.dumps({"agree": agree, "total": total, "solved": solved}))',
      'asyncio.run(main())',
    ].join('\n');
    const file = join(dir, 'guess-replay-api.json');
    writeFileSync(file, JSON.stringify({ episodes }));
    const r = py(['-c', code, file, join(dir, 'verl-stub')]);
    expect(r.status, r.out).toBe(0);
    const got = JSON.parse(r.out.trim().split('\n').pop() as string) as { agree: number; total: number; solved: number };
    expect(got.agree).toBe(got.total);
    expect(got.total).toBe(episodes.reduce((n, e) => n + e.turns.length, 0));
    expect(got.solved).toBe(episodes.filter((e) => e.turns.at(-1)?.reply.startsWith('Correct!')).length);
  });

  it.skipIf(!hasPython)(`and on the episodes passkt played and exported (episode k of a task on stream k)${why}`, () => {
    type Rec = {
      type: string;
      id: string;
      task: { split: 'train' | 'test'; seed: number; options: JsonObject; hidden: JsonObject };
      turns: { role: string; text: string; reward: number; done: boolean }[];
    };
    const eps = readFileSync(played, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
      .filter((r) => r.type === 'episode');
    const replayed: ReplayEpisode[] = eps.map((e) => ({
      split: e.task.split,
      seed: e.task.seed,
      stream: Number(e.id.split('/').pop()) % 4, // passkt --n 4: the run's i-th episode is episode i mod 4 of its task
      options: e.task.options,
      hidden: e.task.hidden,
      turns: e.turns.flatMap((t, j) => (t.role === 'agent' ? [{ message: t.text, reply: e.turns[j + 1].text, reward: t.reward, done: t.done }] : [])),
    }));
    const file = join(dir, 'passkt-replay.json');
    writeFileSync(file, JSON.stringify({ episodes: replayed }));
    const r = py([join(RECIPES, 'verl', 'check_interaction.py'), file]);
    const turns = replayed.reduce((n, e) => n + e.turns.length, 0);
    expect(r.out).toContain(`${turns} of ${turns} turns agree over ${replayed.length} episodes`);
    expect(r.status, r.out).toBe(0);
  });

  it.skipIf(!hasPython)(`and the check has teeth: another stream words the answers otherwise${why}`, () => {
    const shifted = join(dir, 'guess-replay-shifted.json');
    writeFileSync(shifted, JSON.stringify({ episodes: episodes.map((e) => ({ ...e, stream: e.stream + 1 })) }));
    const r = py([join(RECIPES, 'verl', 'check_interaction.py'), shifted]);
    expect(r.status).toBe(1);
  });
});

describe("prepare_data.py passes each task's options to the interaction (issue 48.3)", () => {
  it('the exported Parquet carries the task options the prompt states', async () => {
    const bytes = readFileSync(join(policy, 'data', 'episodes.parquet'));
    const rows = (await parquetReadObjects({
      file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      columns: ['prompt', 'extra_info'],
    })) as { prompt: { content: string }[]; extra_info: { options: string } }[];
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      const { maxTurns } = JSON.parse(r.extra_info.options) as { maxTurns: number };
      expect(r.prompt[0].content).toContain(`You have ${maxTurns} turns.`);
    }
  });

  it.skipIf(!hasPython)(
    `prepare_data.prepare on the lab's Parquet: every task's T from its options (and from the prompt of an older export), and sizes.json${why}`,
    async () => {
      const bytes = readFileSync(join(policy, 'data', 'episodes.parquet'));
      const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
      const json = (x: unknown) => JSON.stringify(x, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
      const current = join(dir, 'parquet-rows.json');
      const older = join(dir, 'parquet-rows-v2.json');
      writeFileSync(current, json(rows));
      // as exported before extra_info carried the options
      writeFileSync(
        older,
        json(rows.map((r) => ({ ...r, extra_info: Object.fromEntries(Object.entries(r.extra_info as object).filter(([k]) => k !== 'options')) }))),
      );
      const code = [
        'import json, re, sys',
        'sys.path.insert(0, "verl")',
        'from prepare_data import prepare, sizes',
        'out = []',
        'for path in sys.argv[1:]:',
        '    rows, notes = prepare(json.load(open(path)))',
        '    t = [(r["extra_info"]["interaction_kwargs"]["max_turns"], int(re.search(r"You have (\\d+) turns", r["prompt"][0]["content"]).group(1))) for items in rows.values() for r in items]',
        '    out.append({"sizes": sizes(rows), "turns": t, "notes": notes, "kwargs": rows["train"][0]["extra_info"]["interaction_kwargs"]})',
        'print(json.dumps(out))',
      ].join('\n');
      const r = py(['-c', code, current, older]);
      expect(r.status, r.out).toBe(0);
      const [now, before] = JSON.parse(r.out.trim().split('\n').pop() as string) as {
        sizes: { train: number; test: number; max_turns: number };
        turns: [number, number][];
        notes: string[];
        kwargs: Record<string, unknown>;
      }[];
      for (const x of [now, before]) {
        expect(x.turns.length).toBe(5); // the 5 tasks, each once
        for (const [kw, prompt] of x.turns) expect(kw).toBe(prompt);
        expect(x.sizes).toEqual({ train: 4, test: 1, max_turns: x.turns[0][0] });
      }
      // the shipped task options, not the family's default T of 5
      const shipped = JSON.parse((rows[0].extra_info as { options: string }).options) as { maxTurns: number; turnCost: number };
      expect(now.kwargs).toMatchObject({ name: 'turnwise_guess', max_turns: shipped.maxTurns, turn_cost: shipped.turnCost, split: 'train' });
      expect(now.notes[0]).toMatch(/holding out 1 of the train tasks/);
    },
  );

  it.skipIf(!hasPython)(`task_options reads T from the options, or from the prompt of an older export${why}`, () => {
    const code = [
      'import json, sys',
      'sys.path.insert(0, "verl")',
      'from turnwise_guess import task_options',
      'print(json.dumps([task_options({"maxTurns": 4, "candidates": 8}), task_options(None, "Guess the animal. You have 3 turns."), task_options(None, None)]))',
    ].join('\n');
    const r = py(['-c', code]);
    expect(r.status, r.out).toBe(0);
    const [fromOptions, fromPrompt, defaults] = JSON.parse(r.out.trim().split('\n')[0]) as { maxTurns: number; turnCost: number }[];
    expect(fromOptions.maxTurns).toBe(4);
    expect(fromPrompt.maxTurns).toBe(3);
    expect(defaults).toMatchObject({ maxTurns: 5, turnCost: 0.01 });
  });
});

describe('run_grpo.sh sizes its batches to the prepared data (issue 48.4)', () => {
  const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;
  /** run_grpo.sh with DRY_RUN=1 on a DATA folder whose sizes.json says `sizes`. */
  function dryRun(sizes: object | null, env: Record<string, string> = {}): { status: number | null; out: string } {
    const data = mkdtempSync(join(dir, 'verl-'));
    if (sizes) writeFileSync(join(data, 'sizes.json'), JSON.stringify(sizes));
    const r = spawnSync('bash', [join(RECIPES, 'verl', 'run_grpo.sh')], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, MODEL: 'merged/policy', DATA: data, DRY_RUN: '1', ...env },
    });
    return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
  }
  const arg = (out: string, key: string) => new RegExp(`${key.replaceAll('.', '\\.')}=(\\S+)`).exec(out)?.[1];

  it.skipIf(!hasPython || !hasBash)(`the README's sizes (18 train tasks) give a batch of 18, not 64${why}`, () => {
    const r = dryRun({ train: 18, test: 2, max_turns: 4 });
    expect(r.status, r.out).toBe(0);
    expect(arg(r.out, 'data.train_batch_size')).toBe('18');
    expect(arg(r.out, 'actor_rollout_ref.actor.ppo_mini_batch_size')).toBe('18');
    // veRL: mini * n / GPUs (144) must be a multiple of the micro-batch
    expect(144 % Number(arg(r.out, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu'))).toBe(0);
    expect(arg(r.out, 'actor_rollout_ref.rollout.multi_turn.max_assistant_turns')).toBe('4');
    expect(r.out).toMatch(/data\.train_batch_size 18 \(asked 64\)/);
  });

  it.skipIf(!hasPython || !hasBash)(`many tasks keep the asked batch; several GPUs get a batch they divide${why}`, () => {
    expect(arg(dryRun({ train: 500, test: 20, max_turns: 5 }).out, 'data.train_batch_size')).toBe('64');
    const r = dryRun({ train: 18, test: 2, max_turns: 4 }, { GPUS: '3', N: '4' });
    expect(r.status, r.out).toBe(0);
    const batch = Number(arg(r.out, 'data.train_batch_size'));
    const micro = Number(arg(r.out, 'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu'));
    expect(batch).toBe(18); // 18 * 4 = 72 sequences, 24 per GPU
    expect(((batch * 4) / 3) % micro).toBe(0);
  });

  it.skipIf(!hasPython || !hasBash)(`no train tasks, too few for the GPUs, or no sizes.json: it stops and says why${why}`, () => {
    const empty = dryRun({ train: 0, test: 1, max_turns: 4 });
    expect(empty.status).not.toBe(0);
    expect(empty.out).toMatch(/run_grpo\.sh: the train split has no tasks/);
    expect(empty.out).not.toContain('verl.trainer.main_ppo');
    const few = dryRun({ train: 1, test: 1, max_turns: 4 }, { GPUS: '16', N: '8' });
    expect(few.status).not.toBe(0);
    expect(few.out).toMatch(/1 train tasks cannot fill one batch for 16 GPUs/);
    const missing = dryRun(null);
    expect(missing.status).not.toBe(0);
    expect(missing.out).toMatch(/sizes\.json is missing: run recipes\/verl\/prepare_data\.py/);
  });
});

describe('recipes/requirements.txt (issue 48.2)', () => {
  const reqs = (file: string) =>
    readFileSync(join(RECIPES, file), 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean);

  it('ranges, each with a lower and an upper bound, whose lower bounds are the oldest set tested', () => {
    const ranges = new Map(
      reqs('requirements.txt').map((l) => {
        const m = /^([a-z0-9-]+)>=([\d.]+),<([\d.]+)$/.exec(l);
        expect(m, `${l}: expected name>=LOW,<HIGH`).not.toBeNull();
        return [m![1], m![2]] as const;
      }),
    );
    for (const name of ['torch', 'transformers', 'peft', 'trl', 'datasets', 'accelerate']) expect(ranges.has(name), name).toBe(true);
    for (const l of reqs('constraints-oldest.txt')) {
      const pin = /^([a-z0-9-]+)==([\d.]+)$/.exec(l);
      if (pin) expect(ranges.get(pin[1]), l).toBe(pin[2]);
    }
    // transformers 4.x needs huggingface-hub < 1.0 and 5.x >= 1.0: neither end may pin it
    expect(reqs('requirements.txt').some((l) => l.startsWith('huggingface-hub'))).toBe(false);
    expect(reqs('constraints-oldest.txt')).toContain('huggingface-hub<1.0');
  });
});
