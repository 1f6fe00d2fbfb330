// A turn in the store (envs/turn.ts defines the one Turn): on disk (IndexedDB rows and our JSONL,
// schema.ts) a turn is kept as two message records — the agent's, then the collaborator's or
// environment's — so that format version 1 files, SWEET-RL and chat exports (which are message lists)
// stay as they are. messagesOf and turnsOf are the only mapping between the two;
// `turnsOf(messagesOf(t)) = t` for every turn the lab plays.
import { isStepInfo, type Turn } from '../envs/turn.ts';
import type { TurnRecord, TurnRole } from './schema.ts';

/** A message record without its write time (the store stamps `at`). */
export type MessageInput = Omit<TurnRecord, 'at'>;

const REPLY_BACKEND = { person: 'human', simulated: 'simulator' } as const;

/**
 * The two message records of a turn: the agent's (reward, tokens, step info), then the reply's (role
 * collaborator or env by family; backend says who wrote it: human, simulator, or env when the step
 * needed no reply; info.reply keeps a reply that differs from the observation).
 */
export function messagesOf(turn: Turn, collaborative: boolean): [MessageInput, MessageInput] {
  const agent: MessageInput = { role: 'agent', text: turn.action, tokens: turn.tokens, logprobs: turn.logprobs, promptTokens: turn.promptTokens, completionTokens: turn.completionTokens, reward: turn.reward, done: turn.done, latencyMs: turn.latencyMs, backend: turn.backend, info: turn.info };
  const reply: MessageInput = {
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

/** The prompt and turns of an episode's message records (inverse of the system record plus messagesOf). */
export function turnsOf(records: readonly Pick<TurnRecord, 'role' | 'text' | 'tokens' | 'logprobs' | 'promptTokens' | 'completionTokens' | 'reward' | 'done' | 'latencyMs' | 'backend' | 'info'>[]): { prompt: string; turns: Turn[] } {
  let prompt = '';
  const turns: Turn[] = [];
  const roles: TurnRole[] = records.map((r) => r.role);
  records.forEach((r, i) => {
    if (r.role === 'system') prompt = prompt ? `${prompt}\n${r.text}` : r.text;
    else if (r.role === 'agent') {
      if (!isStepInfo(r.info)) throw new TurnShapeError(`record ${i}: an agent record's info is not step info (not written by the lab)`);
      turns.push({ action: r.text, reply: null, replySource: null, observation: '', reward: r.reward, done: r.done, info: r.info, tokens: r.tokens, logprobs: r.logprobs, promptTokens: r.promptTokens, completionTokens: r.completionTokens, latencyMs: r.latencyMs, backend: r.backend });
    } else {
      const last = turns[turns.length - 1];
      if (!last || roles[i - 1] !== 'agent') throw new TurnShapeError(`record ${i}: a ${r.role} record must follow an agent record`);
      const source = r.backend === 'human' ? 'person' : r.backend === 'simulator' ? 'simulated' : null;
      last.observation = r.text;
      last.replySource = source;
      last.reply = typeof r.info.reply === 'string' ? r.info.reply : source ? r.text : null;
      last.reward += r.reward;
      last.done = last.done || r.done;
    }
  });
  return { prompt, turns };
}
