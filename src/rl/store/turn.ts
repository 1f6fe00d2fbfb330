// A turn in the store (envs/turn.ts defines the one Turn): on disk (IndexedDB rows and our JSONL,
// schema.ts) a turn is kept as two message records — the agent's, then the collaborator's or
// environment's — so that format version 1 files, SWEET-RL and chat exports (which are message lists)
// stay as they are. messagesOf and readTurns (turnsOf, its checked form for the lab's own records) are
// the only mapping between the two; `turnsOf(messagesOf(t)) = t` for every turn the lab plays.
import { isStepInfo, type Turn } from '../envs/turn.ts';
import type { JsonObject, MessageRecord, MessageRole } from './schema.ts';

/** A message record without its write time (the store stamps `at`). */
type Unstamped = Omit<MessageRecord, 'at'>;

const REPLY_BACKEND = { person: 'human', simulated: 'simulator' } as const;

/**
 * The two message records of a turn: the agent's (reward, tokens, step info), then the reply's (role
 * collaborator or env by family; backend says who wrote it: human, simulator, or env when the step
 * needed no reply; info.reply keeps a reply that differs from the observation).
 */
export function messagesOf(turn: Turn, collaborative: boolean): [Unstamped, Unstamped] {
  const agent: Unstamped = {
    role: 'agent',
    text: turn.action,
    tokens: turn.tokens,
    logprobs: turn.logprobs,
    promptTokens: turn.promptTokens,
    completionTokens: turn.completionTokens,
    reward: turn.reward,
    done: turn.done,
    latencyMs: turn.latencyMs,
    backend: turn.backend,
    info: turn.info,
  };
  const reply: Unstamped = {
    role: collaborative ? 'collaborator' : 'env',
    text: turn.observation,
    tokens: null,
    logprobs: null,
    promptTokens: 0,
    completionTokens: 0,
    reward: 0,
    done: turn.done,
    latencyMs: 0,
    backend: turn.replySource ? REPLY_BACKEND[turn.replySource] : 'env',
    info: turn.reply !== null && turn.reply !== turn.observation ? { reply: turn.reply } : {},
  };
  return [agent, reply];
}

/**
 * Per-turn values (credit, a person's thumbs) aligned with a lab episode's message records — the
 * system prompt, then agent and reply per turn — as the store's credit rows are: value t on agent
 * record 1 + 2t, NaN (no value) on the prompt and the replies.
 */
export function perRecord(perTurn: ArrayLike<number>): Float32Array {
  const out = new Float32Array(1 + 2 * perTurn.length).fill(Number.NaN);
  for (let t = 0; t < perTurn.length; t++) out[1 + 2 * t] = perTurn[t];
  return out;
}

/** Why message records do not read back as turns. */
export class TurnShapeError extends Error {
  override name = 'TurnShapeError';
}

/** An agent turn read back from message records: a Turn whose info is whatever its agent record holds (step info where the lab wrote it). */
export type RecordTurn = Omit<Turn, 'info'> & { info: JsonObject };

type ReadableRecord = Pick<
  MessageRecord,
  'role' | 'text' | 'tokens' | 'logprobs' | 'promptTokens' | 'completionTokens' | 'reward' | 'done' | 'latencyMs' | 'backend' | 'info'
>;

/**
 * The one reader from message records back to turns (the inverse of the system record plus
 * messagesOf): system records make the prompt; each agent record opens a turn, and the reply records
 * after it (collaborator or env) close it. The lab writes one reply per turn; an imported file may
 * split one into several (a collaborator's answer, then the environment's note), which are joined
 * with a newline, their rewards added to the turn's and done if any is. A reply before the first
 * agent record belongs to no turn: `stray` says what to do (default: skip it). `agentRecords[t]`
 * is the index of turn t's agent record.
 */
export function readTurns(
  records: readonly ReadableRecord[],
  stray: (index: number, role: MessageRole) => void = () => {},
): { prompt: string; turns: RecordTurn[]; agentRecords: number[] } {
  let prompt = '';
  const turns: RecordTurn[] = [];
  const agentRecords: number[] = [];
  records.forEach((r, i) => {
    if (r.role === 'system') prompt = prompt ? `${prompt}\n${r.text}` : r.text;
    else if (r.role === 'agent') {
      agentRecords.push(i);
      turns.push({
        action: r.text,
        reply: null,
        replySource: null,
        observation: '',
        reward: r.reward,
        done: r.done,
        info: r.info,
        tokens: r.tokens,
        logprobs: r.logprobs,
        promptTokens: r.promptTokens,
        completionTokens: r.completionTokens,
        latencyMs: r.latencyMs,
        backend: r.backend,
      });
    } else {
      const last = turns[turns.length - 1];
      if (!last) return stray(i, r.role);
      const source = r.backend === 'human' ? 'person' : r.backend === 'simulator' ? 'simulated' : null;
      last.observation = last.observation ? `${last.observation}\n${r.text}` : r.text;
      last.replySource = source ?? last.replySource;
      last.reply = typeof r.info.reply === 'string' ? r.info.reply : last.replySource ? last.observation : null;
      last.reward += r.reward;
      last.done = last.done || r.done;
    }
  });
  return { prompt, turns, agentRecords };
}

/** The prompt and turns of the message records the lab wrote (readTurns, checked: every agent record's info is step info, no reply before the first agent record). */
export function turnsOf(records: readonly ReadableRecord[]): { prompt: string; turns: Turn[] } {
  const { prompt, turns, agentRecords } = readTurns(records, (i, role) => {
    throw new TurnShapeError(`record ${i}: a ${role} record must follow an agent record`);
  });
  return {
    prompt,
    turns: turns.map((t, k) => {
      const { info } = t;
      if (!isStepInfo(info)) throw new TurnShapeError(`record ${agentRecords[k]}: an agent record's info is not step info (not written by the lab)`);
      return { ...t, info };
    }),
  };
}
