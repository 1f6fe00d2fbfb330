// `turnwise credit`: per-turn credit for stored or imported episodes, by any estimators of
// src/rl/credit, from a Turnwise JSONL file (the lab's export, docs/data-formats.md, and what
// `turnwise eval --out` / `passkt --out` write) or one envs Episode per line (what eval --out wrote
// before it wrote Turnwise JSONL; still read so older files keep working). Rewards-only estimators
// (mc, grpo) need nothing else; gae, bilevel-gae and sweet read the critic scores stored with the
// episodes (the lab's export of episodes played with the critic: format version 2 criticScores),
// else score them with the shipped critic and its base as reference (src/rl/rollout/criticInputs.ts);
// the credit itself comes from src/rl/rollout/stored.ts storedCredit, as in the lab's Credit view.
// SWEET-RL's credit is centred at each turn's state by K candidates the policy samples there
// (rollout/centredSweet.ts; --sweet-centre K, default 8, 0 for the raw log-ratio).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { intOption, UsageError, parseOptions, report, type Command } from '../command.ts';
import { prepareOutFile } from '../output.ts';
import { modelsDir } from '../paths.ts';
import { ESTIMATOR_NAMES, estimatorSpec, type EstimatorName } from '../../rl/credit/registry.ts';
import type { CreditParams, CreditResult } from '../../rl/credit/types.ts';
import type { Episode } from '../../rl/envs/types.ts';
import { criticInputs } from '../../rl/rollout/criticInputs.ts';
import { openModels } from '../../rl/rollout/node.ts';
import { centredLabel, SWEET_CENTRE_DEFAULT } from '../../rl/credit/centredSweet.ts';
import { PolicyBatchAgent } from '../../rl/rollout/agents.ts';
import { CENTRE_NO_ADAPTER, centreStored } from '../../rl/rollout/centredSweet.ts';
import type { PolicyEngine } from '../../rl/runtime/policyEngine.ts';
import { SHIPPED_ADAPTER_FILES } from '../../rl/model/folder/folder.ts';
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

/** How SWEET-RL's credit was centred: K (0: the raw log-ratio) and, when nothing was sampled, why. */
interface Centring {
  k: number;
  sampled: boolean;
  note: string;
}

/**
 * SWEET-RL's rows centred at each turn's state: K candidates sampled by the policy and scored by the
 * critic that scored the taken turns (rollout/centredSweet.ts). A critic without an adapter samples nothing.
 */
async function centreSweet(
  results: Map<EstimatorName, CreditResult[]>,
  episodes: readonly StoredEpisode[],
  engine: PolicyEngine | undefined,
  k: number,
  seed: number,
): Promise<Centring> {
  const sweet = results.get('sweet') as CreditResult[];
  // every sweet row says K; `centred` replaces its values when candidates were sampled
  const note = (sampled: boolean, text: string, centred?: Float32Array[]): Centring => {
    results.set(
      'sweet',
      sweet.map((r, i) => ({ ...r, ...(centred ? { perTurn: centred[i] } : {}), params: { ...r.params, centre: k } })),
    );
    return { k, sampled, note: text };
  };
  if (k === 0) return note(false, 'uncentred: the raw log-ratio, identified only up to a function of the state');
  if (!engine || (await engine.adapters('critic')).active === null || !engine.models().some((m) => m.name === 'policy')) return note(false, CENTRE_NO_ADAPTER);
  const agent = await PolicyBatchAgent.create(engine);
  const centred = await centreStored(
    episodes,
    sweet.map((r) => r.perTurn),
    Number(sweet[0]?.params.beta ?? 1),
    { agent, critic: engine },
    { k, seed },
  );
  return note(true, `centred at each turn's state over K = ${k} candidate turns the policy sampled there`, centred);
}

export const credit: Command = {
  name: 'credit',
  summary: "per-turn credit for stored or imported episodes (Turnwise JSONL: the lab's export, eval/passkt --out)",
  usage: [
    `Usage: npx turnwise credit --in FILE [--estimators ${[...REWARD_ESTIMATORS, ...CRITIC_ESTIMATORS].join(',')}|all] [--params JSON]`,
    '                           [--out FILE.turnwise.jsonl] [--rescore] [--models DIR] [--backend node|wasm] [--sweet-centre K] [--seed S] [--json]',
    '',
    "FILE: Turnwise JSONL (the lab's export, turnwise eval --out, passkt --out), or one episode per line (older eval --out files).",
    `Default estimators: ${REWARD_ESTIMATORS.join(',')} (rewards only). ${inWords(CRITIC_ESTIMATORS)} recompute from the critic scores`,
    'stored with the episodes (Play keeps them) when every episode has them; else (or with --rescore) they',
    "read the critic (and its base as SWEET-RL's reference) from --models (default public/models).",
    'GRPO groups episodes of the same task.',
    '--params sets estimator parameters, e.g. \'{"gae":{"gamma":0.9,"lambda":0.5}}\'.',
    '--out writes the Turnwise JSONL input back with the credit as annotations (one value per turn record).',
    `--sweet-centre K (default ${SWEET_CENTRE_DEFAULT}): SWEET-RL's log-ratio is centred at each turn's state, minus its mean over K`,
    'candidate turns the policy (--models) samples there, scored by the critic there (issue #46: Bradley–Terry leaves a function',
    'of the state undetermined). 0: the raw log-ratio. Nothing is sampled when the critic has no SWEET-RL adapter (its log-ratio',
    'is 0 everywhere). The JSON says K (sweetCentre) and each sweet annotation carries it as params.centre. --seed S seeds the candidates.',
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
      'sweet-centre': { type: 'string' },
      seed: { type: 'string' },
    });
    if (!values.in) throw new UsageError('--in FILE is required');
    if (values.out) await prepareOutFile(values.out);
    const estimators = parseEstimators(values.estimators, REWARD_ESTIMATORS);
    const params = parseParams(values.params);
    const backend = values.backend ?? 'node';
    if (backend !== 'node' && backend !== 'wasm') throw new UsageError(`--backend must be node or wasm, got "${backend}"`);
    const loaded = await loadEpisodes(values.in);
    const withTurns = loaded.episodes.filter((e) => e.critic.turns.length > 0);
    const sweet = estimators.includes('sweet');
    if (values['sweet-centre'] !== undefined && !sweet) throw new UsageError("--sweet-centre centres SWEET-RL's credit: add sweet to --estimators");
    const k = intOption(values['sweet-centre'], 'sweet-centre', SWEET_CENTRE_DEFAULT, 0, 1024);
    const seed = intOption(values.seed, 'seed', 1, 0);
    const needsCritic = estimators.some(estimatorNeedsCritic);
    const storedOk = !values.rescore && hasStoredScores(withTurns);
    // centring samples with the policy and scores with the critic, which then scores the taken turns too
    // (one critic for both); stored scores from a critic without an adapter need neither (0 by construction)
    const storedNoAdapter = storedOk && withTurns.every((e) => !e.scores?.version.includes('@'));
    const centring = sweet && k > 0 && !storedNoAdapter;
    const criticSource = !needsCritic ? null : storedOk && !centring ? 'stored' : 'critic';
    const root = values.models ?? modelsDir();
    // the policy is loaded only to sample candidates for a critic with an adapter (checked again once loaded)
    const engine =
      criticSource === 'critic'
        ? await openModels({
            root,
            backend,
            models: centring && existsSync(join(root, 'critic', SHIPPED_ADAPTER_FILES[0])) ? ['policy', 'critic'] : ['critic'],
          })
        : undefined;
    let results: Map<EstimatorName, CreditResult[]>;
    let centre: Centring | null = null;
    try {
      const critic = engine
        ? await criticInputs(
            engine,
            withTurns.map((e) => e.critic),
          )
        : undefined;
      results = storedCredit(withTurns, estimators, params, critic);
      if (sweet) centre = await centreSweet(results, withTurns, centring ? engine : undefined, k, seed);
    } finally {
      await engine?.dispose();
    }
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
    const centreFields = centre ? { sweetCentre: centre.k, sweetCentreNote: centre.note } : {};
    report(!!values.json, { file: values.in, format: loaded.format, estimators, params, criticSource, ...centreFields, episodes: rows }, () =>
      [
        `${values.in}: ${rows.length} episodes (${loaded.format}); credit per turn by ${estimators.join(', ')}${criticSource === 'stored' ? ' (critic estimators from the stored critic scores)' : ''}`,
        ...(centre ? [`sweet: ${centredLabel('SWEET-RL', centre.k)}; ${centre.note}`] : []),
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
