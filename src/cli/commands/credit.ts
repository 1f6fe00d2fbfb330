// `turnwise credit`: per-turn credit for stored or imported episodes, by any estimators of
// src/rl/credit, from a Turnwise JSONL file (the lab's export, docs/data-formats.md, and what
// `turnwise eval --out` / `passkt --out` write) or one envs Episode per line (what eval --out wrote
// before it wrote Turnwise JSONL; still read so older files keep working). Rewards-only estimators
// (mc, grpo) need nothing else; gae, bilevel-gae and sweet read the critic scores stored with the
// episodes (the lab's export of episodes played with the critic: format version 2 criticScores),
// else score them with the shipped critic and its base as reference (src/rl/rollout/criticInputs.ts);
// the credit itself comes from src/rl/rollout/stored.ts storedCredit, as in the lab's Credit view.
import { readFile, writeFile } from 'node:fs/promises';
import { UsageError, parseOptions, report, type Command } from '../command.ts';
import { prepareOutFile } from '../output.ts';
import { modelsDir } from '../paths.ts';
import { ESTIMATOR_NAMES, estimatorSpec, type EstimatorName } from '../../rl/credit/registry.ts';
import type { CreditParams, CreditResult, EpisodeCreditInput } from '../../rl/credit/types.ts';
import type { Episode } from '../../rl/envs/types.ts';
import { criticInputs } from '../../rl/rollout/criticInputs.ts';
import { openModels } from '../../rl/rollout/node.ts';
import {
  annotations,
  CRITIC_ESTIMATORS,
  fromEpisode,
  estimatorNeedsCritic,
  hasStoredScores,
  readStored,
  REWARD_ESTIMATORS,
  storedCredit,
  type StoredEpisode,
} from '../../rl/rollout/stored.ts';
import { readLines, textSource, type EpisodeRecord, type PortableRecord } from '../../rl/store/index.ts';
import { decodeTurnwise, encodeTurnwise } from '../../rl/store/formats/turnwise.ts';

/** True when the estimator reads a turn-level Q critic (ArCHer), which the shipped critic, a value head, cannot give. */
const needsQ = (name: EstimatorName) => estimatorSpec(name).needs.includes('q');

/** Parses --estimators; "all" is every registered estimator the shipped models can feed, and one that needs a Q critic is refused. */
export function parseEstimators(value: string | undefined, fallback: readonly EstimatorName[]): EstimatorName[] {
  const names = value === undefined ? [...fallback] : value === 'all' ? ESTIMATOR_NAMES.filter((n) => !needsQ(n)) : value.split(',').map((s) => s.trim());
  for (const n of names) {
    if (!(ESTIMATOR_NAMES as readonly string[]).includes(n)) throw new UsageError(`unknown estimator "${n}" (known: ${ESTIMATOR_NAMES.join(', ')}, all)`);
    if (needsQ(n as EstimatorName)) throw new UsageError(`${n} needs a turn-level Q critic, which the shipped critic does not have`);
  }
  return names as EstimatorName[];
}

/** "a, b and c". */
const inWords = (xs: readonly string[]) => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`);

/** Parses --params '{"gae":{"gamma":0.9}}'. */
export function parseParams(value: string | undefined): Record<string, CreditParams> {
  if (value === undefined) return {};
  try {
    const p = JSON.parse(value) as unknown;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new Error('not an object');
    return p as Record<string, CreditParams>;
  } catch {
    throw new UsageError('--params must be a JSON object of estimator → parameters, e.g. \'{"gae":{"gamma":0.9}}\'');
  }
}

interface Loaded {
  format: 'turnwise' | 'episodes';
  episodes: StoredEpisode[];
  records: PortableRecord[];
}

/** Reads either format; Turnwise JSONL is validated line by line (problems are reported, not skipped). */
export async function loadEpisodes(path: string): Promise<Loaded> {
  const text = await readFile(path, 'utf8');
  const first = text.split('\n').find((l) => l.trim() !== '');
  if (first === undefined) throw new UsageError(`${path} is empty`);
  let head: unknown;
  try {
    head = JSON.parse(first);
  } catch {
    throw new UsageError(`${path}: the first line is not JSON`);
  }
  if (head !== null && typeof head === 'object' && 'format' in head) {
    const records: PortableRecord[] = [];
    const problems: string[] = [];
    for await (const ev of decodeTurnwise(readLines(textSource(text)))) {
      if (ev.kind === 'record') records.push(ev.record);
      else problems.push(`line ${ev.issue.line}${ev.issue.path ? ` ${ev.issue.path}` : ''}: ${ev.issue.message}`);
    }
    if (problems.length) throw new UsageError(`${path} is not valid Turnwise JSONL:\n  ${problems.slice(0, 10).join('\n  ')}`);
    const episodes = readStored(records.filter((r): r is EpisodeRecord => r.type === 'episode'));
    return { format: 'turnwise', episodes, records };
  }
  const episodes = text
    .split('\n')
    .map((l, i) => [l, i + 1] as const)
    .filter(([l]) => l.trim() !== '')
    .map(([l, line]) => {
      const e = JSON.parse(l) as Episode;
      if (!e?.task?.spec || !Array.isArray(e.turns))
        throw new UsageError(`${path} line ${line}: expected a Turnwise JSONL header or an episode {task, turns, …}`);
      return fromEpisode(e, line);
    });
  return { format: 'episodes', episodes, records: [] };
}

/** The critic's inputs for the episodes, from the critic in a models folder. */
async function scoreWithCritic(root: string, backend: 'node' | 'wasm', episodes: readonly StoredEpisode[]): Promise<EpisodeCreditInput[]> {
  const engine = await openModels({ root, backend, models: ['critic'] });
  try {
    return await criticInputs(
      engine,
      episodes.map((e) => e.critic),
    );
  } finally {
    await engine.dispose();
  }
}

export const credit: Command = {
  name: 'credit',
  summary: "per-turn credit for stored or imported episodes (Turnwise JSONL: the lab's export, eval/passkt --out)",
  usage: [
    `Usage: npx turnwise credit --in FILE [--estimators ${[...REWARD_ESTIMATORS, ...CRITIC_ESTIMATORS].join(',')}|all] [--params JSON]`,
    '                           [--out FILE.turnwise.jsonl] [--rescore] [--models DIR] [--backend node|wasm] [--json]',
    '',
    "FILE: Turnwise JSONL (the lab's export, turnwise eval --out, passkt --out), or one episode per line (older eval --out files).",
    `Default estimators: ${REWARD_ESTIMATORS.join(',')} (rewards only). ${inWords(CRITIC_ESTIMATORS)} recompute from the critic scores`,
    'stored with the episodes (Play keeps them) when every episode has them; else (or with --rescore) they',
    "read the critic (and its base as SWEET-RL's reference) from --models (default public/models).",
    'GRPO groups episodes of the same task.',
    '--params sets estimator parameters, e.g. \'{"gae":{"gamma":0.9,"lambda":0.5}}\'.',
    '--out writes the Turnwise JSONL input back with the credit as annotations (one value per turn record).',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, {
      in: { type: 'string' },
      estimators: { type: 'string' },
      params: { type: 'string' },
      out: { type: 'string' },
      rescore: { type: 'boolean' },
      models: { type: 'string' },
      backend: { type: 'string' },
    });
    if (!values.in) throw new UsageError('--in FILE is required');
    if (values.out) await prepareOutFile(values.out);
    const estimators = parseEstimators(values.estimators, REWARD_ESTIMATORS);
    const params = parseParams(values.params);
    const backend = values.backend ?? 'node';
    if (backend !== 'node' && backend !== 'wasm') throw new UsageError(`--backend must be node or wasm, got "${backend}"`);
    const loaded = await loadEpisodes(values.in);
    const withTurns = loaded.episodes.filter((e) => e.critic.turns.length > 0);
    const needsCritic = estimators.some(estimatorNeedsCritic);
    const criticSource = !needsCritic ? null : !values.rescore && hasStoredScores(withTurns) ? 'stored' : 'critic';
    const critic = criticSource === 'critic' ? await scoreWithCritic(values.models ?? modelsDir(), backend, withTurns) : undefined;
    const results = storedCredit(withTurns, estimators, params, critic);
    const rows = withTurns.map((e, i) => ({
      id: e.id,
      family: e.family,
      split: e.split,
      seed: e.seed,
      turns: e.critic.turns.length,
      rewards: e.critic.turns.map((t) => t.reward),
      credit: Object.fromEntries(estimators.map((n) => [n, Array.from((results.get(n) as CreditResult[])[i].perTurn)])),
    }));
    if (values.out) {
      if (loaded.format !== 'turnwise') throw new UsageError('--out needs a Turnwise JSONL input (annotations go into its episode records)');
      const byId = new Map(withTurns.map((e, i) => [e.id, i]));
      const now = Date.now();
      const records = loaded.records.map((r) => {
        const i = r.type === 'episode' ? byId.get(r.id) : undefined;
        if (r.type !== 'episode' || i === undefined) return r;
        const mine = annotations(
          r,
          withTurns[i],
          estimators.map((n) => (results.get(n) as CreditResult[])[i]),
          'turnwise-credit-1',
          now,
        );
        return { ...r, credit: [...r.credit.filter((c) => !estimators.includes(c.estimator as EstimatorName)), ...mine] };
      });
      const lines: string[] = [];
      for await (const l of encodeTurnwise(records)) lines.push(l);
      await writeFile(values.out, lines.join(''));
    }
    report(!!values.json, { file: values.in, format: loaded.format, estimators, params, criticSource, episodes: rows }, () =>
      [
        `${values.in}: ${rows.length} episodes (${loaded.format}); credit per turn by ${estimators.join(', ')}${criticSource === 'stored' ? ' (critic estimators from the stored critic scores)' : ''}`,
        ...rows
          .slice(0, 20)
          .map(
            (r) =>
              `  ${r.id} ${r.family}/${r.seed} rewards [${r.rewards.map((x) => x.toFixed(2)).join(' ')}]  ${estimators.map((n) => `${n} [${r.credit[n].map((x) => x.toFixed(2)).join(' ')}]`).join('  ')}`,
          ),
        ...(rows.length > 20 ? [`  … ${rows.length - 20} more (use --json)`] : []),
        ...(values.out ? [`annotated file written to ${values.out}`] : []),
      ].join('\n'),
    );
    return 0;
  },
};
