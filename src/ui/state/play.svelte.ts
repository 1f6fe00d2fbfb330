// State of the Play view: one episode in which a person (or the simulated collaborator) answers the
// agent. The episode is played by the lab's one episode loop (rollout/rollout.ts runSlots, one slot)
// with two waits the person controls: the agent's next move (taken at once for collaborative
// families, on "Next move" for the RAGEN games) and the collaborator's reply. Each turn is committed
// to the store (rollout/sink.ts) before it is drawn and before the agent moves again, so what the
// person sees is what was saved. Models run in the policy worker; the environment runs here.
// A person's typed answer to a `guess` question is read before it is sent (envs/guess/answers.ts):
// when the reader cannot tell yes from no, the view asks again instead of wasting the turn.
// The Lab owns one session (lab.svelte.ts), so an episode waiting for the person survives a switch
// to another view and back. The learned policy is the default agent (agentChoice.ts says when the
// noisy expert stands in); a policy episode is played and recorded with the adapter that was live
// when it began (the policy worker's active one; null: the base policy).
import { proxy } from 'comlink';
import { readReply } from '../../rl/envs/guess/answers.ts';
import { GUESS_REPLIES } from '../../rl/envs/guess/env.ts';
import { ATTRIBUTES } from '../../rl/envs/guess/table.ts';
import type { CollaboratorRequest, Split, Task, TaskSpec } from '../../rl/envs/types.ts';
import { FAMILIES, type FamilyName } from '../../rl/envs/registry.ts';
import type { Turn } from '../../rl/envs/turn.ts';
import { familyAgent, PolicyBatchAgent, type BatchAgent } from '../../rl/rollout/agents.ts';
import { runSlots, type EpisodeSlot, type RolloutEvent } from '../../rl/rollout/rollout.ts';
import type { PolicyFit } from '../../rl/model/fit.ts';
import { storeSink, type StoreSink } from '../../rl/rollout/sink.ts';
import { turnsOf } from '../../rl/store/turn.ts';
import type { TrajectoryStore } from '../../rl/store/index.ts';
import { type GenerateApi, type ModelMeta, type TokenEvent, type SamplingParams } from '../../rl/runtime/api.ts';
import { choiceOptions, choiceStart, chosenLesson } from './lessonChoice.ts';
import type { LessonStart } from '../../rl/envs/family.ts';
import type { PolicyClient } from '../engine/policyClient.ts';
import type { CriticScores } from '../../rl/rollout/liveCredit.ts';
import { PlayAnnotations, type LiveCreditRow } from './playAnnotations.ts';
import { PlaySaving } from './playSaving.svelte.ts';
import { agentInUse, agentKindOf, agentLabel, forgedNote, policyFitFor, policyModelOf, sentence, type PlayAgentKind } from './agentChoice.ts';
import { forgedRecord } from '../../rl/model/meta.ts';

export type { PlayAgentKind } from './agentChoice.ts';

export type PlayStatus = 'idle' | 'agent' | 'thinking' | 'reply' | 'done' | 'error';

/** A recorded turn plus the person's judgement of it. */
export type PlayTurn = Turn & {
  feedback: 'up' | 'down' | null;
};

/** The attribute a pending `guess` question asks about (ATTRIBUTES index), or null for any other request. */
function askedAttribute(request: CollaboratorRequest | null): number | null {
  if (request?.family !== 'guess' || request.parsed.kind !== 'question') return null;
  const a = ATTRIBUTES.findIndex((x) => x.key === request.parsed.attribute);
  return a >= 0 ? a : null;
}

/** Where Play finds what it needs from the rest of the lab. */
export interface PlayContext {
  /** The trajectory store now; null while it opens or when it could not open. */
  store(): TrajectoryStore | null;
  /**
   * The store once its opening has settled, with why it is null if it could not open (the lab's
   * notice, "Episodes cannot be saved: …"). An episode started during a page's first moments waits for it, so it is saved like any other.
   */
  openedStore(): Promise<{ store: TrajectoryStore | null; error: string | null }>;
  /** The policy worker's engine, null until it is ready. */
  engine(): PolicyClient | null;
  /** Whether the worker has loaded `model` (a lesson's start, which loads after the shipped policy). */
  loaded(model: LessonStart): boolean;
  /** The engine is starting or the models are still loading (the policy may yet become ready). */
  policyLoading(): boolean;
  /** Registers a stored adapter in the policy worker (resuming an episode an adapter began). */
  loadAdapter(id: string): Promise<void>;
  /** Sampling for the policy (Settings). */
  sampling(): Partial<Omit<SamplingParams, 'seed'>>;
  /** The seed of a new episode (Settings). */
  nextSeed(): number;
  /** The loaded policy's model metadata (the task options it was forged on), when loaded. */
  policyMeta(): ModelMeta | undefined;
}

/** A wait the person ends. */
interface Wait<T> {
  resolve(value: T): void;
  reject(reason: Error): void;
}

/** Ends the waits of an episode another one replaced; the loop then stops quietly. */
class Superseded extends Error {
  override name = 'Superseded';
}

/** The episode being played: the loop's two waits, and where it is saved. */
interface Running {
  /** Run to the end: the loop waits for nobody. */
  auto: boolean;
  /** The agent's next move is waiting for agentTurn(). */
  move: Wait<void> | null;
  /** A reply is waiting for reply() (null: let the simulator answer). */
  answer: Wait<string | null> | null;
  /** null while saving is off or failed. */
  sink: StoreSink | null;
  /** Settles when the loop has stopped, however it stopped. */
  done: Promise<void>;
  /** The family's agent moves without the person's "Next move" (collaborative families). */
  collaborative: boolean;
}

export class PlaySession {
  /** Saving the episode: the notice when it failed, turns waiting to be written, Retry saving. */
  readonly saving: PlaySaving;

  /** The agent's reply as it streams in, token by token (policy only). */
  streaming = $state('');

  constructor(private readonly ctx: PlayContext) {
    this.saving = new PlaySaving(() => ctx.openedStore());
    this.annotations = new PlayAnnotations((message) => (this.saving.error = message));
  }

  family = $state<FamilyName>('guess');
  /** The family's lesson the person chose in the menu (lessonChoice.ts), or null for the options the policy was forged on. */
  lesson = $state<string | null>(null);
  /** The policy the choice plays from: the lesson's start (the shipped policy or the forge's student). */
  readonly startModel: LessonStart = $derived(choiceStart(this.family, this.lesson));
  split = $state<Split>('test');
  seed = $state(1);
  /** The agent the person chose; `agent` says which one actually plays a new episode. */
  agentKind = $state<PlayAgentKind>('policy');
  /** The current episode's agent, e.g. "policy · adapter train-grpo-…/policy" or "noisy expert"; null before the first. */
  playedBy = $state<string | null>(null);
  /** The adapter the current episode is played with and recorded under (null: base policy or a scripted agent). */
  adapter = $state<string | null>(null);
  /** The current episode's id in the store (null until its start is saved, or when it is not saved). */
  episodeId = $state<string | null>(null);
  /** The reply box's text, kept while another view is open. */
  draft = $state('');
  task = $state.raw<Task | null>(null);
  turns = $state.raw<PlayTurn[]>([]);
  request = $state.raw<CollaboratorRequest | null>(null);
  status = $state<PlayStatus>('idle');
  error = $state<string | null>(null);
  /** A typed answer the reader could not tell yes from no; the view asks again (answer()) before anything is sent. */
  unsure = $state<string | null>(null);

  /** Whether the loaded policy can take the chosen family's task (checkFit; null: not checked or no policy). */
  fit = $state.raw<PolicyFit | null>(null);
  /** Counts checkFit() calls: only the latest one sets `fit`. */
  private fitCall = 0;

  private running: Running | null = null;
  private readonly annotations: PlayAnnotations;
  /** Callers of agentTurn() waiting for the step to land. */
  private landed: (() => void)[] = [];

  readonly families = Object.keys(FAMILIES) as FamilyName[];
  /** Who plays a new episode of the chosen family, and why when it is not the chosen agent. */
  /** The loaded policy's held-out record on the chosen family, in words (null: none recorded, or another agent plays). */
  // a lesson's own figures are in its note (FamilyMenu); the forged record is of other tasks
  readonly policyRecord = $derived.by(() =>
    this.agentKind === 'policy' && !chosenLesson(this.family, this.lesson) ? forgedNote(forgedRecord(this.ctx.policyMeta(), this.family), this.family) : null,
  );
  readonly agent = $derived.by(() => {
    const ready = this.ctx.engine() !== null && this.ctx.loaded(this.startModel);
    return agentInUse(this.agentKind, { ready, loading: this.ctx.policyLoading(), families: this.ctx.policyMeta()?.families, fit: this.fit }, this.family);
  });
  /** The episode's family (the chosen one before it starts). */
  readonly episodeFamily = $derived<FamilyName>(this.task?.spec.family ?? this.family);
  readonly collaborative = $derived(FAMILIES[this.episodeFamily]?.collaborative ?? false);
  /** The episode's family spec: its view hints (boards, what solved means, step notes). */
  readonly familySpec = $derived(FAMILIES[this.episodeFamily]);
  readonly totalReward = $derived(this.turns.reduce((a, t) => a + t.reward, 0));
  readonly success = $derived(this.turns.at(-1)?.info.success ?? false);
  /** The pending request is a `guess` yes/no question: the view offers Yes / No / Not sure. */
  readonly asksYesNo = $derived(this.request?.family === 'guess' && this.request.parsed.kind === 'question');

  /** The task a new episode of the chosen family plays: the chosen lesson's options, else those the loaded policy learned (e.g. guess with 4 candidates), else the family's defaults. */
  private specFor(seed: number): TaskSpec {
    const options = choiceOptions(this.ctx.policyMeta(), this.family, this.lesson);
    return { family: this.family, split: this.split, seed, ...(options ? { options } : {}) };
  }

  /**
   * Checks whether the loaded policy can take the chosen family's task (its prompt plus the reply
   * reserve within the policy's context, rl/rollout/policyFit.ts), so the agent note says why before
   * the person starts; start() checks the episode's own task again. The latest call wins.
   */
  async checkFit(): Promise<void> {
    const call = ++this.fitCall;
    const fit = await policyFitFor(this.ctx.engine(), this.specFor(this.seed));
    if (call === this.fitCall) this.fit = fit;
  }

  /** Starts an episode; with no seed, the seed Settings gives (random by default). */
  async start(seed?: number): Promise<void> {
    const ep = this.reset(seed ?? this.ctx.nextSeed(), []);
    try {
      const spec = this.specFor(this.seed);
      // never start a policy episode the policy cannot take: the check decides who plays (agentInUse)
      if (this.agentKind === 'policy') {
        this.fitCall++;
        this.fit = await policyFitFor(this.ctx.engine(), spec);
      }
      const kind = this.agent.kind;
      const model = this.startModel;
      const adapter = kind === 'policy' ? await this.liveAdapter(model) : null;
      const agent = kind === 'policy' ? await this.policyAgent(adapter, model) : familyAgent(kind, this.family);
      this.playing(kind, adapter, model);
      ep.sink = await this.saving.open({ policy: agent.name, adapter, critic: null });
      await this.play(ep, { spec, seed: this.seed }, agent);
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * Continues an interrupted episode from the store (Data view → Resume): takes it over in this
   * session, replays its stored turns on a fresh environment (runSlots' prefix, which checks that
   * they reproduce) and plays on with the agent that began it, writing to the same stored episode.
   */
  async resume(episodeId: string): Promise<void> {
    const { store, error } = await this.ctx.openedStore();
    if (!store) return this.fail(new Error(error ?? 'the trajectory store is not open'));
    const ep = this.reset(0, []);
    try {
      const record = await store.resumeEpisode(episodeId);
      const { turns } = turnsOf(record.turns);
      const kind = agentKindOf(record.model.policy);
      if (!kind) throw new Error(`episode ${episodeId} was played by "${record.model.policy}", which Play cannot continue`);
      this.family = record.task.family as FamilyName;
      this.split = record.task.split;
      this.seed = record.task.seed;
      this.agentKind = kind;
      const feedback = record.credit.find((c) => c.estimator === 'human-feedback')?.values ?? [];
      this.turns = turns.map((t, i) => ({ ...t, feedback: feedback[1 + 2 * i] === 1 ? 'up' : feedback[1 + 2 * i] === -1 ? 'down' : null }));
      // the adapter that began it plays on (loaded from the store after a reload)
      const adapter = kind === 'policy' ? record.model.adapter : null;
      const spec: TaskSpec = { family: this.family, split: this.split, seed: this.seed, options: record.task.options };
      // an episode begun before the check existed (or under another model) may not fit this policy
      const fit = kind === 'policy' ? await policyFitFor(this.ctx.engine(), spec) : null;
      if (fit?.kind === 'too-long') throw new Error(`${sentence(fit.reason)}, so it cannot continue episode ${episodeId}; discard it in Data`);
      if (adapter !== null) await this.ctx.loadAdapter(adapter);
      const model = policyModelOf(record.model.policy);
      const agent = kind === 'policy' ? await this.policyAgent(adapter, model) : familyAgent(kind, this.family);
      this.playing(kind, adapter, model);
      ep.sink = storeSink(store, record.model, { resumed: { 0: { episodeId, turns } } });
      ep.collaborative = FAMILIES[this.family].collaborative;
      await this.play(ep, { spec, seed: this.seed, prefix: turns }, agent);
    } catch (e) {
      this.fail(e);
    }
  }

  /** Ends the current episode and clears the view for a new one. */
  private reset(seed: number, turns: PlayTurn[]): Running {
    this.stop(new Superseded('a new episode was started'));
    const ep: Running = {
      auto: false,
      move: null,
      answer: null,
      sink: null,
      done: Promise.resolve(),
      collaborative: FAMILIES[this.family]?.collaborative ?? false,
    };
    this.running = ep;
    this.seed = seed;
    this.task = null;
    this.turns = turns;
    this.request = null;
    this.unsure = null;
    this.error = null;
    this.streaming = '';
    this.draft = '';
    this.playedBy = null;
    this.adapter = null;
    this.episodeId = null;
    // 'thinking' until the loop first waits: for a game's "Next move" ('agent') or for a reply ('reply')
    this.setStatus('thinking');
    return ep;
  }

  /** Runs the one slot through the episode loop; resolves once it has started (or stopped). */
  private async play(ep: Running, slot: EpisodeSlot, agent: BatchAgent): Promise<void> {
    let started = (): void => undefined;
    const begun = new Promise<void>((resolve) => (started = resolve));
    ep.done = runSlots([slot], this.gated(ep, agent), {
      collaborator: (request) => this.ask(ep, request),
      onEvent: async (e) => {
        await this.land(ep, e);
        if (e.kind === 'start') started();
      },
    }).then(
      () => undefined,
      (e: Error) => this.ended(ep, e),
    );
    await Promise.race([begun, ep.done]);
  }

  /** The agent takes its next move; resolves when the move has landed (a reply is asked, a turn recorded, or the end). */
  agentTurn(): Promise<void> {
    const move = this.running?.move;
    if (this.status === 'agent' && move && this.running) {
      this.running.move = null;
      this.setStatus('thinking');
      move.resolve();
    }
    return this.status === 'thinking' ? new Promise((resolve) => this.landed.push(resolve)) : Promise.resolve();
  }

  /**
   * Sends the collaborator's reply: the person's text, or (simulated) the simulator's suggestion. A
   * person's answer to a `guess` question that reads as neither yes nor no is held back: 'unsure'
   * (and `unsure` set) until answer() settles it or another text reads clearly.
   */
  reply(text: string, source: 'person' | 'simulated' = 'person'): 'sent' | 'unsure' | 'ignored' {
    if (this.status !== 'reply' || !this.running?.answer) return 'ignored';
    const attribute = source === 'person' ? askedAttribute(this.request) : null;
    if (attribute !== null && readReply(text, attribute).kind === 'unsure') {
      this.unsure = text;
      return 'unsure';
    }
    this.send(source === 'simulated' ? null : text);
    return 'sent';
  }

  /**
   * The person's Yes / No / Not sure for a `guess` question: sends the simulated collaborator's
   * plain phrasing ("Yes.", "No.", "I don't know."), or, for Not sure after an unclear answer, that
   * answer as typed (the environment reads it as unknown).
   */
  answer(kind: 'yes' | 'no' | 'unknown'): void {
    if (this.status !== 'reply' || !this.running?.answer) return;
    this.send(kind === 'unknown' && this.unsure !== null ? this.unsure : GUESS_REPLIES[kind][0]);
  }

  private send(text: string | null): void {
    const answer = this.running?.answer;
    if (!answer || !this.running) return;
    this.running.answer = null;
    this.unsure = null;
    this.setStatus('thinking');
    answer.resolve(text);
  }

  /** Lets the simulated collaborator answer the pending question. */
  simulateReply(): void {
    this.reply('', 'simulated');
  }

  /** Plays on with the simulated collaborator until the episode ends. */
  async runToEnd(): Promise<void> {
    const ep = this.running;
    if (!ep || this.status === 'done' || this.status === 'error' || this.status === 'idle') return;
    ep.auto = true;
    if (this.status === 'reply') this.simulateReply();
    else void this.agentTurn();
    await ep.done;
  }

  /**
   * Thumbs up/down on an agent turn (clicking again clears it). Saved as the episode's
   * 'human-feedback' credit row: +1 / −1 on each judged agent turn's record, NaN elsewhere
   * (store/turn.ts perRecord, the alignment of every credit row) — the per-turn reward that training
   * reads. A drawn turn is already stored, so its records exist when the row is written.
   */
  judge(index: number, verdict: 'up' | 'down'): void {
    this.turns = this.turns.map((t, i) => (i === index ? { ...t, feedback: t.feedback === verdict ? null : verdict } : t));
    const id = this.running?.sink?.ids.get(0);
    const store = this.ctx.store();
    if (id && store)
      this.annotations.rate(
        store,
        id,
        this.turns.map((t) => (t.feedback === 'up' ? 1 : t.feedback === 'down' ? -1 : Number.NaN)),
      );
  }

  /**
   * Stores the credit Play showed for the finished episode and the critic's scores behind it
   * (playAnnotations.ts), so the GAE, bi-level GAE and SWEET-RL values computed during play are not
   * lost. Called again as the critic's last scores land or a slider moves; each call replaces the rows.
   */
  saveLiveCredit(rows: readonly LiveCreditRow[], scores: CriticScores | null = null): void {
    const id = this.running?.sink?.ids.get(0);
    const store = this.ctx.store();
    // while turns wait to be written the credit would not fit the stored episode; reading `unsaved`
    // here makes the caller's effect run again once Retry saving has written them
    if (!id || !store || this.status !== 'done' || this.saving.unsaved > 0) return;
    this.annotations.saveLive(store, id, rows, scores);
  }

  /** The policy worker's live adapter of `model` now (null: the model itself). */
  private async liveAdapter(model: LessonStart): Promise<string | null> {
    const engine = this.ctx.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    return (await engine.adapters(model)).active;
  }

  /**
   * The learned policy over the worker's engine with `adapter` pinned (null: the base policy), so a
   * new adapter going live mid-episode does not change who plays it; its tokens stream into `streaming`.
   */
  private async policyAgent(adapter: string | null, model: LessonStart): Promise<BatchAgent> {
    const engine = this.ctx.engine();
    if (!engine) throw new Error('the policy is not loaded yet (see Settings → Models)');
    const api: GenerateApi = {
      generate: (request) =>
        engine.generate(
          request,
          proxy((e: TokenEvent) => (this.streaming += e.delta)),
        ),
      models: () => engine.models(),
    };
    return PolicyBatchAgent.create(api, { model, sampling: this.ctx.sampling(), adapter });
  }

  private playing(kind: PlayAgentKind, adapter: string | null, model: LessonStart): void {
    this.adapter = adapter;
    this.playedBy = agentLabel(kind, adapter, model);
  }

  /** The agent, waiting for the person's "next move" unless the episode runs to its end. */
  private gated(ep: Running, agent: BatchAgent): BatchAgent {
    return {
      name: agent.name,
      act: async (requests) => {
        if (ep !== this.running) throw new Superseded('a new episode was started');
        // a collaborative agent moves at once; a game waits for the person's "Next move"
        if (!ep.auto && !ep.collaborative) {
          await new Promise<void>((resolve, reject) => {
            ep.move = { resolve, reject };
            this.setStatus('agent');
          });
        }
        this.setStatus('thinking');
        this.streaming = '';
        const out = await agent.act(requests);
        if (ep !== this.running) throw new Superseded('a new episode was started');
        this.streaming = '';
        return out;
      },
      release: (slot) => agent.release?.(slot),
    };
  }

  /** The collaborator's side: wait for the person (or answer with the simulator when running to the end). */
  private ask(ep: Running, request: CollaboratorRequest): Promise<string | null> {
    if (ep !== this.running) return Promise.reject(new Superseded('a new episode was started'));
    if (ep.auto) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      ep.answer = { resolve, reject };
      this.request = request;
      this.setStatus('reply');
    });
  }

  /** One loop event: saved first, then shown. */
  private async land(ep: Running, e: RolloutEvent): Promise<void> {
    if (ep !== this.running) throw new Superseded('a new episode was started');
    const sink = ep.sink;
    if (sink) {
      // a start the store refused: the episode plays on unsaved (saving.error says so)
      if (!(await this.saving.save(sink, e))) ep.sink = null;
      else if (e.kind === 'start') this.episodeId = sink.ids.get(0) ?? null;
    }
    if (e.kind === 'start') this.task = e.task;
    else if (e.kind === 'turn') {
      this.request = null;
      this.turns = [...this.turns, { ...e.turn, feedback: null }];
    } else this.setStatus('done');
  }

  /** Ends the current episode's waits; its unfinished stored episode is closed with `reason`. */
  private stop(reason: Superseded): void {
    const ep = this.running;
    if (!ep) return;
    this.running = null;
    ep.move?.reject(reason);
    ep.answer?.reject(reason);
    const sink = ep.sink;
    ep.sink = null;
    // after the loop has stopped, so no write of the old episode races the abort
    void ep.done.then(() => sink?.abort(reason.message)).catch(() => undefined);
  }

  private ended(ep: Running, e: Error): void {
    if (e.name === 'Superseded' || ep !== this.running) return;
    this.fail(e);
  }

  private setStatus(status: PlayStatus): void {
    this.status = status;
    if (status !== 'thinking') for (const resolve of this.landed.splice(0)) resolve();
  }

  private fail(e: unknown): void {
    this.error = (e as Error).message;
    this.setStatus('error');
  }
}
