// The shared mechanics of every environment: the reset/step state machine, the two-phase
// collaborator protocol (types.ts), the turn limit T and the guard against oversized messages.
// Families implement `start` (draw the task) and `act` (read one message).
import { Rng } from '../util/rng.ts';
import {
  EnvError,
  type CollaboratorRequest,
  type Env,
  type JsonObject,
  type PendingStep,
  type StepInfo,
  type StepReason,
  type StepResult,
  type Task,
  type TaskSpec,
} from './types.ts';
import type { FamilyName } from './registry.ts';

/** What a family's `act` returns: either a finished step or a question for the collaborator. */
export type Action = { kind: 'done'; result: StepResult } | { kind: 'reply'; parsed: JsonObject; suggestion: string; finish: (reply: string) => StepResult };

/** Builds a StepInfo with the common fields first. */
export function stepInfo(reason: StepReason, fields: JsonObject = {}, invalidFormat = false, success = false): StepInfo {
  return { ...fields, reason, invalidFormat, success };
}

/** Removes control characters (except newlines and tabs) so binary input cannot garble observations. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, ' ');
}

export abstract class BaseEnv implements Env {
  abstract readonly family: FamilyName;
  /** Longest agent message the family reads; longer ones end the step as 'too-long'. */
  protected abstract readonly maxMessageChars: number;
  /** Reward for an unreadable or oversized message (RAGEN's format penalty). */
  protected formatPenalty = -0.1;

  protected task: Task | null = null;
  /** Randomness for the environment and the simulated collaborator (slips, payouts, phrasings), reseeded by reset from seed and stream. */
  protected rng = new Rng(0);
  private spec: TaskSpec | null = null;
  private turns = 0;
  private finished = false;
  private pending: { request: CollaboratorRequest; finish: (reply: string) => StepResult } | null = null;

  /** Draws the task for a spec whose family was checked; returns the Task (its options completed). */
  protected abstract start(spec: TaskSpec): Task;
  /** Reads one agent message of at most maxMessageChars characters. */
  protected abstract act(message: string): Action;
  /** Called when turn T ends without `done`: extra reward and text for the truncated episode. */
  protected onTurnLimit(): { reward: number; observation: string; fields: JsonObject; success: boolean } {
    return { reward: 0, observation: 'No turns left.', fields: {}, success: false };
  }

  /** Randomness that defines the task itself: depends on family, split, seed and label, never on the stream. */
  protected taskRng(label: string): Rng {
    const spec = this.spec as TaskSpec;
    return new Rng(`${spec.family}/${spec.split}/${spec.seed}/${label}`);
  }

  get turn(): number {
    return this.turns;
  }

  get done(): boolean {
    return this.finished;
  }

  /**
   * Re-seeds the environment's and simulated collaborator's randomness in the middle of an episode,
   * from (task, stream, turns taken). Counterfactual re-rolls replay a recorded prefix under its own
   * stream (reproducing the state exactly), then continue under fresh randomness with this.
   */
  reseed(stream: number): void {
    const spec = this.spec;
    if (!spec) throw new EnvError('reset() must be called before reseed()');
    if (!Number.isSafeInteger(stream)) throw new EnvError(`stream must be a safe integer, got ${JSON.stringify(stream)}`);
    this.rng = new Rng(`${spec.family}/${spec.split}/${spec.seed}/env/${stream}/turn/${this.turns}`);
  }

  reset(spec: TaskSpec): Task {
    if (spec.family !== this.family) throw new EnvError(`a ${this.family} environment cannot run a ${String(spec.family)} task`);
    if (spec.split !== 'train' && spec.split !== 'test') throw new EnvError(`split must be "train" or "test", got ${JSON.stringify(spec.split)}`);
    if (!Number.isSafeInteger(spec.seed)) throw new EnvError(`seed must be a safe integer, got ${JSON.stringify(spec.seed)}`);
    const stream = spec.stream ?? 0;
    if (!Number.isSafeInteger(stream)) throw new EnvError(`stream must be a safe integer, got ${JSON.stringify(spec.stream)}`);
    this.spec = spec;
    this.rng = new Rng(`${spec.family}/${spec.split}/${spec.seed}/env/${stream}`);
    this.turns = 0;
    this.finished = false;
    this.pending = null;
    const task = this.start(spec);
    if (stream !== 0) task.spec = { ...task.spec, stream };
    this.task = task;
    return task;
  }

  beginStep(agentMessage: string): PendingStep {
    const task = this.task;
    if (!task) throw new EnvError('reset() must be called before beginStep()');
    if (this.finished) throw new EnvError('the episode is over; call reset()');
    if (this.pending) throw new EnvError('a collaborator reply is pending; call completeStep()');
    this.turns++;
    const message = typeof agentMessage === 'string' ? agentMessage : String(agentMessage);
    if (message.length > this.maxMessageChars) {
      const result: StepResult = {
        observation: `Your message is too long (${message.length} characters; the limit is ${this.maxMessageChars}).`,
        reward: this.formatPenalty,
        done: false,
        info: stepInfo('too-long', { chars: message.length }, true),
      };
      return { kind: 'done', result: this.close(result) };
    }
    const action = this.act(clean(message));
    if (action.kind === 'done') return { kind: 'done', result: this.close(action.result) };
    const request: CollaboratorRequest = {
      family: this.family,
      turn: this.turns,
      agentMessage: message,
      parsed: action.parsed,
      hidden: task.hidden,
      suggestion: action.suggestion,
    };
    this.pending = { request, finish: action.finish };
    return { kind: 'reply', request };
  }

  completeStep(reply: string): StepResult {
    const pending = this.pending;
    if (!pending) throw new EnvError('no collaborator reply is pending');
    this.pending = null;
    const text = clean(typeof reply === 'string' ? reply : String(reply)).slice(0, 2000);
    return this.close(pending.finish(text));
  }

  step(agentMessage: string): StepResult {
    const pending = this.beginStep(agentMessage);
    return pending.kind === 'done' ? pending.result : this.completeStep(pending.request.suggestion);
  }

  /** Applies the turn limit and marks the episode finished. */
  private close(result: StepResult): StepResult {
    if (!result.done && this.turns >= (this.task as Task).maxTurns) {
      const end = this.onTurnLimit();
      result = {
        observation: `${result.observation} ${end.observation}`.trim(),
        reward: result.reward + end.reward,
        done: true,
        info: { ...result.info, ...end.fields, reason: 'turn-limit', truncated: true, success: end.success },
      };
    }
    if (result.done) this.finished = true;
    return result;
  }
}
