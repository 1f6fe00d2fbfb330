// State of the Play view: one episode in which a person (or the simulated collaborator) answers
// the agent. Steps are explicit so the person can read each agent turn before replying; the
// environment is pure TypeScript and cheap, so it runs here while models run in workers.
import { createAgent, createEnv, FAMILIES } from '../../rl/envs/registry.ts';
import { dialogueOf } from '../../rl/envs/episode.ts';
import type { Agent, AgentKind, CollaboratorRequest, Env, FamilyName, Message, Split, Task } from '../../rl/envs/types.ts';
import { EpisodeRecorder } from '../../rl/rollout/recorder.ts';
import { SCRIPTED, type AgentSide, type Turn } from '../../rl/envs/turn.ts';
import { perRecord } from '../../rl/store/turn.ts';
import type { TrajectoryStore } from '../../rl/store/index.ts';
import { PolicyAgent, taskOptions, type GenerateApi, type ModelMeta, type TokenEvent, type SamplingParams } from '../../rl/runtime/api.ts';
import { proxy } from 'comlink';
import type { PolicyClient } from '../engine/policyClient.ts';

export type PlayStatus = 'idle' | 'agent' | 'thinking' | 'reply' | 'done' | 'error';

/** A recorded turn plus the person's judgement of it. */
export type PlayTurn = Turn & {
  feedback: 'up' | 'down' | null;
};

/** Agent kinds the Play view offers: the learned policy (when the shipped models loaded) or a scripted one. */
export type PlayAgentKind = AgentKind | 'policy';

/** Where Play finds what it needs from the rest of the lab. */
export interface PlayContext {
  store(): TrajectoryStore | null;
  /** The policy worker's engine, null until it is ready. */
  engine(): PolicyClient | null;
  /** Sampling for the policy (Settings). */
  sampling(): Partial<Omit<SamplingParams, 'seed'>>;
  /** The seed of a new episode (Settings). */
  nextSeed(): number;
  /** The loaded policy's model metadata (the task options it was forged on), when loaded. */
  policyMeta(): ModelMeta | undefined;
}

export class PlaySession {
  /** Set when saving failed; the episode goes on, unsaved. */
  saveError = $state<string | null>(null);

  /** The agent's reply as it streams in, token by token (policy only). */
  streaming = $state('');

  constructor(private readonly ctx: PlayContext) {}

  private store(): TrajectoryStore | null {
    return this.ctx.store();
  }

  family = $state<FamilyName>('guess');
  split = $state<Split>('test');
  seed = $state(1);
  agentKind = $state<PlayAgentKind>('noisy');
  task = $state.raw<Task | null>(null);
  turns = $state.raw<PlayTurn[]>([]);
  request = $state.raw<CollaboratorRequest | null>(null);
  status = $state<PlayStatus>('idle');
  error = $state<string | null>(null);

  /** Where the episode is saved; null while saving is off or failed. */
  private recorder: Promise<EpisodeRecorder | null> = Promise.resolve(null);
  private env: Env | null = null;
  private agent: Agent | null = null;
  private runId = 0;
  /** The agent turn in progress, so "run to the end" can wait for it. */
  private inflight: Promise<void> | null = null;

  readonly families = Object.keys(FAMILIES) as FamilyName[];
  readonly collaborative = $derived(FAMILIES[this.family]?.collaborative ?? false);
  readonly totalReward = $derived(this.turns.reduce((a, t) => a + t.reward, 0));
  readonly success = $derived(this.turns.at(-1)?.info.success ?? false);

  /** The dialogue as the agent sees it. */
  dialogue(): Message[] {
    return this.task ? dialogueOf(this.task.prompt, this.turns) : [];
  }

  /** Starts an episode; with no seed, the seed Settings gives (random by default). */
  async start(seed?: number): Promise<void> {
    this.runId++;
    this.seed = seed ?? this.ctx.nextSeed();
    try {
      this.env = createEnv(this.family);
      // The tasks the loaded policy learned (e.g. guess with 4 candidates); other families keep their defaults.
      const options = taskOptions(this.ctx.policyMeta(), this.family);
      this.task = this.env.reset({ family: this.family, split: this.split, seed: this.seed, ...(options ? { options } : {}) });
      this.agent = this.agentKind === 'policy' ? await this.policyAgent(this.seed) : createAgent(this.agentKind, this.family, { seed: this.seed });
      this.turns = [];
      this.request = null;
      this.error = null;
      this.status = 'agent';
      this.beginRecording(this.task);
    } catch (e) {
      this.fail(e);
    }
  }

  /** The learned policy over the worker's engine, streaming its tokens into `streaming`. */
  private async policyAgent(seed: number): Promise<Agent> {
    const engine = this.ctx.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    const api: GenerateApi = {
      generate: (request) => engine.generate(request, proxy((e: TokenEvent) => (this.streaming += e.delta))),
      models: () => engine.models(),
    };
    return PolicyAgent.create(api, { seed, sampling: this.ctx.sampling() });
  }

  /** The agent side of the turn just taken (a model turn's tokens and counts). */
  private agentSide(): AgentSide {
    if (!(this.agent instanceof PolicyAgent) || !this.agent.lastTurn) return SCRIPTED;
    const { generation, latencyMs, backend } = this.agent.lastTurn;
    return { tokens: generation.tokenIds, logprobs: generation.logprobs, promptTokens: generation.promptTokens, completionTokens: generation.completionTokens, latencyMs, backend };
  }

  /** The agent takes its next turn; a collaborative family then waits for a reply. */
  agentTurn(): Promise<void> {
    if (this.status !== 'agent' || !this.env || !this.agent) return this.inflight ?? Promise.resolve();
    this.inflight = this.takeTurn(this.env, this.agent).finally(() => (this.inflight = null));
    return this.inflight;
  }

  private async takeTurn(env: Env, agent: Agent): Promise<void> {
    const run = this.runId;
    this.status = 'thinking';
    try {
      // Durability: every completed turn is committed before the next agent step starts.
      await (await this.recorder)?.flushed().catch(() => undefined);
      this.streaming = '';
      const action = await agent.act(this.dialogue());
      this.streaming = '';
      if (run !== this.runId) return; // a newer episode superseded this one
      const pending = env.beginStep(action);
      if (pending.kind === 'done') this.record({ action, reply: null, replySource: null, ...pending.result, ...this.agentSide() });
      else {
        this.request = pending.request;
        this.status = 'reply';
      }
    } catch (e) {
      this.fail(e);
    }
  }

  /** Sends the collaborator's reply: the person's text, or the simulator's suggestion. */
  reply(text: string, source: 'person' | 'simulated' = 'person'): void {
    if (this.status !== 'reply' || !this.env || !this.request) return;
    const action = this.request.agentMessage;
    try {
      const result = this.env.completeStep(text);
      this.request = null;
      this.record({ action, reply: text, replySource: source, ...result, ...this.agentSide() });
    } catch (e) {
      this.fail(e);
    }
  }

  /** Lets the simulated collaborator answer the pending question. */
  simulateReply(): void {
    if (this.request) this.reply(this.request.suggestion, 'simulated');
  }

  /** Plays on with the simulated collaborator until the episode ends. */
  async runToEnd(): Promise<void> {
    const run = this.runId;
    while (run === this.runId && this.status !== 'done' && this.status !== 'error' && this.status !== 'idle') {
      if (this.status === 'reply') this.simulateReply();
      else await this.agentTurn();
    }
  }

  /**
   * Thumbs up/down on an agent turn (clicking again clears it). Saved as the episode's
   * 'human-feedback' credit row: +1 / −1 on each judged agent turn's record, NaN elsewhere
   * (store/turn.ts perRecord, the alignment of every credit row) — the per-turn reward that training reads.
   */
  judge(index: number, verdict: 'up' | 'down'): void {
    this.turns = this.turns.map((t, i) => (i === index ? { ...t, feedback: t.feedback === verdict ? null : verdict } : t));
    const values = perRecord(this.turns.map((t) => (t.feedback === 'up' ? 1 : t.feedback === 'down' ? -1 : Number.NaN)));
    void this.recorder.then(async (r) => {
      if (!r) return;
      // a credit row holds one value per message record: wait until every judged turn's records are written
      await r.flushed();
      await this.store()?.putCredit(r.episodeId, { estimator: 'human-feedback', version: 'person', values });
    }).catch((e: Error) => {
      this.saveError = `A rating could not be saved: ${e.message}`;
    });
  }

  private beginRecording(task: Task): void {
    const previous = this.recorder;
    const store = this.store();
    const collaborative = this.collaborative;
    this.recorder = (async () => {
      const last = await previous;
      if (last && !last.finished) await last.abort('a new episode was started').catch(() => undefined);
      if (!store) return null;
      // the policy plays with the engine's active adapter (Train's "use as live policy"): tag it
      const engine = this.agentKind === 'policy' ? this.ctx.engine() : null;
      const adapter = engine ? (await engine.adapters()).active : null;
      return EpisodeRecorder.begin(store, task, { policy: this.agent?.name ?? this.agentKind, adapter, critic: null }, { collaborative });
    })().catch((e: Error) => {
      this.saveError = `This episode is not being saved: ${e.message}`;
      return null;
    });
  }

  private record(turn: Turn): void {
    this.turns = [...this.turns, { ...turn, feedback: null }];
    this.status = turn.done ? 'done' : 'agent';
    void this.recorder.then((r) =>
      r?.turn(turn).catch((e: Error) => {
        this.saveError = `A turn could not be saved: ${e.message}`;
      }),
    );
  }

  private fail(e: unknown): void {
    this.error = (e as Error).message;
    this.status = 'error';
  }
}
