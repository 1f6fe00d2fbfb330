// Preference pairs for TRL's DPOTrainer, in its conversational preference format
// (https://huggingface.co/docs/trl/dataset_formats: {"prompt": [messages], "chosen": [messages],
// "rejected": [messages]}, chosen/rejected continuing the shared prompt), one pair per line:
//   dpo       episode-level pairs (multi-turn DPO, the SWEET-RL paper's baseline): episodes of the same
//             task (family, split, seed, options) ranked by return; the i-th best of the top half is
//             paired with the i-th best of the bottom half. The prompt is the longest common message
//             prefix that both continue with an agent turn; chosen/rejected are the rest of each dialogue.
//   turn-dpo  per-turn pairs (SWEET-RL's turn-level DPO, arXiv 2503.15478 §4.2): agent replies given the
//             same task and the same history, scored by a per-turn credit estimate (the SWEET-RL
//             advantage, or any stored estimator) or, by default, by the return of the episodes that
//             followed (identical replies are merged and their scores averaged: a Monte-Carlo value);
//             distinct replies ranked, top half paired with bottom half, at most `pairsPerContext` pairs.
// Both need all episodes of a task before pairing, so the encoders hold the episodes' messages (not
// their tokens) in memory. Extra fields are flat strings/numbers so `datasets` infers one schema.
// The task prompt (a system record in the lab) is a `user` message here: TRL's
// maybe_apply_chat_template needs a prompt that ends with a user (or assistant) message and raises
// "Invalid role in the last message: system" otherwise — and a first-turn pair's prompt is the task
// prompt alone. Mapping it the same way in every pair keeps the prompts of all pairs alike, and
// `system_prompt` says it was mapped, so a trainer can render the lab's exact layout (<|system|>).
import type { EpisodeRecord, PortableRecord, MessageRole } from '../schema.ts';
import { chatRole, type ChatRole } from './chat.ts';
import type { EncodeProgress } from './turnwise.ts';

export interface PairMessage {
  role: ChatRole;
  content: string;
}

/** One line of the dpo / turn-dpo exports. */
export interface PreferenceRecord {
  prompt: PairMessage[];
  chosen: PairMessage[];
  rejected: PairMessage[];
  /** 'episode' (dpo) or 'turn' (turn-dpo). */
  level: 'episode' | 'turn';
  /** family|split|seed|options: which task both sides solve. */
  task_key: string;
  family: string;
  /** The task's hidden information as JSON text (for asymmetric critics; the policy never sees it). */
  hidden: string;
  /** True when prompt[0] is the task prompt, a system message in the lab's layout (here a user message); recipes/trl_dpo.py restores it. */
  system_prompt: boolean;
  /** Agent-turn index (0-based) where the sides diverge. */
  turn: number;
  score_chosen: number;
  score_rejected: number;
  /** Episode ids behind each side (turn-dpo: the first episode with that reply). */
  chosen_episode: string;
  rejected_episode: string;
}

/** How pairs are formed. */
export interface PairOptions {
  /** Pair only when score_chosen − score_rejected > minMargin (default 0: strictly better). */
  minMargin?: number;
  /** Most pairs per task (dpo) or per shared history (turn-dpo); default 4, as in SWEET-RL. */
  pairsPerContext?: number;
  /** turn-dpo: credit estimator ("sweet", or "sweet@critic-3") whose per-turn value ranks replies; default: the episode's return. */
  credit?: string;
}

const taskKey = (e: EpisodeRecord) => `${e.task.family}|${e.task.split}|${e.task.seed}|${JSON.stringify(e.task.options)}`;
/** Roles in preference pairs: as in the chat export, except that the system prompt is the user's request. */
export const pairRole = (role: MessageRole): ChatRole => (role === 'system' ? 'user' : chatRole(role));
const messagesOf = (e: EpisodeRecord): PairMessage[] => e.turns.map((t) => ({ role: pairRole(t.role), content: t.text }));
const sameMessage = (a: PairMessage, b: PairMessage) => a.role === b.role && a.content === b.content;
const finished = (e: EpisodeRecord) => e.status === 'complete' && e.outcome !== null;

function groupBy<T>(items: Iterable<T>, key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

/** Pairs best-first ranked items: i-th of the top half with i-th of the bottom half, while the margin holds. */
function halves<T>(ranked: T[], score: (t: T) => number, margin: number, max: number): [T, T][] {
  const half = Math.floor(ranked.length / 2);
  const out: [T, T][] = [];
  for (let i = 0; i < half && out.length < max; i++) {
    const [c, r] = [ranked[i], ranked[ranked.length - half + i]];
    if (score(c) - score(r) > margin) out.push([c, r]);
  }
  return out;
}

/** Message index where two dialogues stop agreeing, moved back so both continue with an agent turn; −1 if none. */
export function divergence(a: PairMessage[], b: PairMessage[]): number {
  let k = 0;
  while (k < a.length && k < b.length && sameMessage(a[k], b[k])) k++;
  while (k >= 0 && !(a[k]?.role === 'assistant' && b[k]?.role === 'assistant')) k--;
  return k;
}

const agentTurnsBefore = (m: PairMessage[], k: number) => m.slice(0, k).filter((x) => x.role === 'assistant').length;

/**
 * What pairing saw among the episodes it was given: enough to say why an export holds no pair
 * (noPairsReason). Play gives every episode a new task unless the seed is fixed, so "no pairs" is
 * the usual result of exporting Play's episodes, not a fault.
 */
export interface PairingSummary {
  level: 'episode' | 'turn';
  /** Episode records given. */
  episodes: number;
  /** Those complete with an outcome (the only ones paired). */
  finished: number;
  /** Distinct tasks (family, split, seed, options) among the finished ones. */
  tasks: number;
  /** dpo: tasks with two or more finished episodes; turn-dpo: shared histories answered with two or more different replies. */
  candidates: number;
  /** turn-dpo: agent turns that had a score (the named credit estimator's value, or the episode's return). */
  scoredTurns: number;
  /** The credit estimator asked for (turn-dpo), if any. */
  credit: string | null;
  pairs: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Why pairing formed no pair, in one sentence; null when it formed some. */
export function noPairsReason(s: PairingSummary): string | null {
  if (s.pairs > 0) return null;
  if (s.episodes === 0) return 'there are no episodes to pair';
  if (s.finished === 0) return `none of the ${plural(s.episodes, 'episode')} is finished (complete, with an outcome), and only finished episodes are paired`;
  const one = s.finished === 1;
  const finished = one ? 'the one finished episode' : `the ${s.finished} finished episodes`;
  if (s.level === 'turn' && s.credit !== null && s.scoredTurns === 0)
    return `${finished} ${one ? 'carries' : 'carry'} no stored "${s.credit}" credit to rank replies by`;
  if (s.candidates === 0) {
    const spread = one
      ? 'is of one task, played once'
      : s.tasks === s.finished
        ? `are of ${s.tasks} different tasks, each played once`
        : `are of ${plural(s.tasks, 'task')}`;
    return s.level === 'episode'
      ? `${finished} ${spread}: a pair needs two finished episodes of the same task (family, split, seed and options)`
      : `${finished} ${spread}, and no two episodes answer the same task and history with different replies: a pair needs that`;
  }
  return s.level === 'episode'
    ? `the ${plural(s.candidates, 'task')} played more than once scored the same in every episode (or repeated the same dialogue): a pair needs one episode that did strictly better`
    : `the ${plural(s.candidates, 'history', 'histories')} answered with different replies scored the same for each reply: a pair needs one reply that did strictly better`;
}

/** Episode-level pairs over finished episodes of the same task. */
export function episodePairs(episodes: Iterable<EpisodeRecord>, opts: PairOptions = {}): PreferenceRecord[] {
  return pairEpisodes(episodes, opts).pairs;
}

/** Episode-level pairs and what pairing saw. */
export function pairEpisodes(episodes: Iterable<EpisodeRecord>, opts: PairOptions = {}): { pairs: PreferenceRecord[]; summary: PairingSummary } {
  const margin = opts.minMargin ?? 0;
  const max = opts.pairsPerContext ?? 4;
  const out: PreferenceRecord[] = [];
  const all = [...episodes];
  const groups = groupBy(all.filter(finished), taskKey);
  let candidates = 0;
  for (const [key, group] of groups) {
    if (group.length > 1) candidates++;
    const ret = (e: EpisodeRecord) => e.outcome?.totalReward ?? 0;
    const ranked = group.slice().sort((a, b) => ret(b) - ret(a) || (a.id < b.id ? -1 : 1));
    for (const [c, r] of halves(ranked, ret, margin, max)) {
      const cm = messagesOf(c);
      const rm = messagesOf(r);
      const k = divergence(cm, rm);
      if (k < 0 || (cm.length === rm.length && cm.every((m, i) => sameMessage(m, rm[i])))) continue;
      out.push({
        prompt: cm.slice(0, k),
        chosen: cm.slice(k),
        rejected: rm.slice(k),
        level: 'episode',
        task_key: key,
        family: c.task.family,
        hidden: JSON.stringify(c.task.hidden),
        system_prompt: k > 0 && c.turns[0]?.role === 'system',
        turn: agentTurnsBefore(cm, k),
        score_chosen: ret(c),
        score_rejected: ret(r),
        chosen_episode: c.id,
        rejected_episode: r.id,
      });
    }
  }
  const finishedCount = [...groups.values()].reduce((n, g) => n + g.length, 0);
  return {
    pairs: out,
    summary: {
      level: 'episode',
      episodes: all.length,
      finished: finishedCount,
      tasks: groups.size,
      candidates,
      scoredTurns: 0,
      credit: null,
      pairs: out.length,
    },
  };
}

/** The per-turn score of agent turn `i` of `e`: the named estimator's credit, else the episode's return. */
function turnScore(e: EpisodeRecord, i: number, credit: string | undefined): number | null {
  if (!credit) return e.outcome?.totalReward ?? null;
  const c = e.credit.find((c) => c.estimator === credit || `${c.estimator}@${c.version}` === credit);
  return c?.values[i] ?? null;
}

/** A per-turn pair from any source (e.g. the trainer's N sampled candidates ranked by the critic); give the prompt pairRole's roles. */
export function turnPairRecord(
  prompt: PairMessage[],
  chosen: { text: string; score: number; episode?: string },
  rejected: { text: string; score: number; episode?: string },
  task: { key: string; family: string; hidden: unknown; systemPrompt?: boolean },
): PreferenceRecord {
  return {
    prompt,
    chosen: [{ role: 'assistant', content: chosen.text }],
    rejected: [{ role: 'assistant', content: rejected.text }],
    level: 'turn',
    task_key: task.key,
    family: task.family,
    hidden: JSON.stringify(task.hidden),
    system_prompt: prompt.length > 0 && (task.systemPrompt ?? false),
    turn: prompt.filter((m) => m.role === 'assistant').length,
    score_chosen: chosen.score,
    score_rejected: rejected.score,
    chosen_episode: chosen.episode ?? '',
    rejected_episode: rejected.episode ?? '',
  };
}

/** Per-turn pairs: agent replies to an identical history of the same task, ranked by per-turn score. */
export function turnPairs(episodes: Iterable<EpisodeRecord>, opts: PairOptions = {}): PreferenceRecord[] {
  return pairTurns(episodes, opts).pairs;
}

/** Per-turn pairs and what pairing saw. */
export function pairTurns(episodes: Iterable<EpisodeRecord>, opts: PairOptions = {}): { pairs: PreferenceRecord[]; summary: PairingSummary } {
  const margin = opts.minMargin ?? 0;
  const max = opts.pairsPerContext ?? 4;
  type Reply = { text: string; sum: number; n: number; episode: string };
  const contexts = new Map<string, { prompt: PairMessage[]; e: EpisodeRecord; replies: Map<string, Reply> }>();
  let seen = 0;
  let done = 0;
  let scoredTurns = 0;
  const tasks = new Set<string>();
  for (const e of episodes) {
    seen++;
    if (!finished(e)) continue;
    done++;
    tasks.add(taskKey(e));
    const msgs = messagesOf(e);
    e.turns.forEach((t, i) => {
      if (t.role !== 'agent') return;
      const score = turnScore(e, i, opts.credit);
      if (score === null) return;
      scoredTurns++;
      const prompt = msgs.slice(0, i);
      const key = `${taskKey(e)}\u0000${JSON.stringify(prompt)}`;
      let ctx = contexts.get(key);
      if (!ctx) contexts.set(key, (ctx = { prompt, e, replies: new Map() }));
      const r = ctx.replies.get(t.text);
      if (r) {
        r.sum += score;
        r.n++;
      } else ctx.replies.set(t.text, { text: t.text, sum: score, n: 1, episode: e.id });
    });
  }
  const out: PreferenceRecord[] = [];
  let candidates = 0;
  for (const { prompt, e, replies } of contexts.values()) {
    if (replies.size < 2) continue;
    candidates++;
    const mean = (r: Reply) => r.sum / r.n;
    const ranked = [...replies.values()].sort((a, b) => mean(b) - mean(a) || (a.text < b.text ? -1 : 1));
    for (const [c, r] of halves(ranked, mean, margin, max)) {
      out.push(
        turnPairRecord(
          prompt,
          { text: c.text, score: mean(c), episode: c.episode },
          { text: r.text, score: mean(r), episode: r.episode },
          { key: taskKey(e), family: e.task.family, hidden: e.task.hidden, systemPrompt: e.turns[0]?.role === 'system' },
        ),
      );
    }
  }
  return {
    pairs: out,
    summary: { level: 'turn', episodes: seen, finished: done, tasks: tasks.size, candidates, scoredTurns, credit: opts.credit ?? null, pairs: out.length },
  };
}

/** Options of the dpo and turn-dpo encoders: how pairs are formed, and who hears what pairing saw. */
export interface PairEncodeOptions extends PairOptions {
  /** Called once, after pairing and before the first line: say why there is no line (noPairsReason). */
  onSummary?: (s: PairingSummary) => void;
}

async function* encodePairs(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  pair: (eps: EpisodeRecord[]) => { pairs: PreferenceRecord[]; summary: PairingSummary },
  onProgress?: (p: EncodeProgress) => void,
  onSummary?: (s: PairingSummary) => void,
): AsyncGenerator<string> {
  const episodes: EpisodeRecord[] = [];
  // Only what pairing reads is kept: messages, task, outcome, credit.
  for await (const r of records) if (r.type === 'episode') episodes.push({ ...r, turns: r.turns.map((t) => ({ ...t, tokens: null, logprobs: null })) });
  const { pairs, summary } = pair(episodes);
  onSummary?.(summary);
  let n = 0;
  let bytes = 0;
  for (const p of pairs) {
    const line = `${JSON.stringify(p)}\n`;
    bytes += line.length;
    onProgress?.({ records: ++n, bytes });
    yield line;
  }
}

/** The dpo JSONL (episode-level pairs) of the episodes among `records`. */
export function encodeDpo(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  onProgress?: (p: EncodeProgress) => void,
  opts: PairEncodeOptions = {},
): AsyncGenerator<string> {
  return encodePairs(records, (eps) => pairEpisodes(eps, opts), onProgress, opts.onSummary);
}

/** The turn-dpo JSONL (per-turn pairs) of the episodes among `records`. */
export function encodeTurnDpo(
  records: AsyncIterable<PortableRecord> | Iterable<PortableRecord>,
  onProgress?: (p: EncodeProgress) => void,
  opts: PairEncodeOptions = {},
): AsyncGenerator<string> {
  return encodePairs(records, (eps) => pairTurns(eps, opts), onProgress, opts.onSummary);
}
