// Requests and results of the inference engine (policy and critic). Plain data only, so every type
// here crosses comlink unchanged; the in-thread engine and the worker client share them.
import type { ModelMeta } from '../../model/meta.ts';
import type { ChatMessage } from '../../model/tokenizer/chat.ts';
import type { ModelConfig } from '../../model/llama/config.ts';
import type { HeadsSpec, LoraSpec, ModelWeights } from '../../model/llama/weights.ts';
import type { BackendKind } from '../ort.ts';
import type { SamplingParams } from './sampling.ts';

/**
 * What the model continues:
 *  - `messages`: the chat template (tokenizer/chat.ts) with the agent's generation prompt appended;
 *  - `text`: `<|bos|>` and the text encoded literally;
 *  - `ids`: token ids as they are.
 */
export type Prompt = { messages: ChatMessage[]; window?: PromptWindow } | { text: string } | { ids: number[] };

/**
 * The forge's sliding context window (model/tokenizer/dialogue.ts windowIds): keep the head (system, and hidden for
 * a critic) and the most recent whole turns, from a 'user' turn on, such that the prompt plus
 * `reserve` reply tokens fits `budget`. Defaults: the model's turnwise.contextTokens (else maxSeq)
 * and the request's maxNewTokens. The shipped policy was trained on exactly these windows.
 */
export interface PromptWindow {
  budget?: number;
  reserve?: number;
}

/** Fields every request may carry. */
export interface RequestCommon {
  /** Loaded model name; default 'policy'. */
  model?: string;
  /** Adapter id to apply; `null` = the base model (adapter off, the reference); omitted = the active adapter. */
  adapter?: string | null;
  /** Lets `cancel(id)` stop this request. */
  id?: string;
  /** A newer request on the same channel cancels this one (latest request wins, e.g. live credit). */
  channel?: string;
}

export interface GenerateRequest extends RequestCommon {
  /** B different prompts, generated together in one ragged batch. */
  prompts: Prompt[];
  /** K samples of each prompt (Pass@K, group-relative methods); default 1. Batch = B·K rows. */
  n?: number;
  sampling?: Partial<SamplingParams>;
  /**
   * One sampling seed per prompt, overriding `sampling.seed` for that prompt's rows, so B episodes
   * batched into one call each keep the random stream they would have alone (rollouts).
   */
  seeds?: number[];
  /**
   * KV reuse across calls (engine/contexts.ts), n = 1 only: one key per prompt. After the call the
   * engine keeps each prompt's context (prompt + reply) under its key; the next prompt under that key
   * prefills only the tokens after the longest run of leading ids it shares with the kept context,
   * else the whole prompt (a sliding window that cut the dialogue shares only the head). Generated
   * tokens and log-probs equal a call without keys (to float rounding). A kept context is used once,
   * dropped when its adapter changes, and bounded in memory (least recently kept dropped first).
   */
  cacheKeys?: string[];
  /** Kept contexts to drop before this call (episodes that ended). */
  forget?: string[];
}

export type FinishReason = 'end' | 'stop' | 'length';

/** One generated sequence. */
export interface Generation {
  /** Index into `prompts`. */
  prompt: number;
  /** Sample index in [0, n). Its random stream depends only on (seed, sample). */
  sample: number;
  /** Decoded completion, without the end token and cut before a matched stop string. */
  text: string;
  /** Every generated token, including the end token or the token that completed a stop string. */
  tokenIds: number[];
  /** log π(token | context) under the model (temperature 1, unfiltered), one per token id. */
  logprobs: number[];
  promptTokens: number;
  completionTokens: number;
  /** 'end': the model emitted <|end|>; 'stop': a stop string; 'length': maxNewTokens or the context filled. */
  finishReason: FinishReason;
  /** The stop string that ended it, when finishReason is 'stop'. */
  stop?: string;
  /** Prompt tokens whose keys and values came from a kept context (GenerateRequest.cacheKeys) instead of a prefill. */
  reusedTokens?: number;
}

/** Wall time per phase, ms. */
export interface Timing {
  /** Tokenising the prompts. */
  encodeMs: number;
  /** The prefill run (prompt → first logits). */
  prefillMs: number;
  /** All decode steps together. */
  decodeMs: number;
  /** Sampling and text decoding in TypeScript. */
  sampleMs: number;
  /** Request start → first token sampled. */
  firstTokenMs: number;
  totalMs: number;
  decodeSteps: number;
}

export interface GenerateResult {
  /** Prompt-major: index = prompt · n + sample. */
  generations: Generation[];
  timing: Timing;
  backend: BackendKind;
  /** The adapter in effect (null = base). */
  adapter: string | null;
}

/** Streamed as each token is produced (pass a comlink `proxy(fn)` across the worker). */
export interface TokenEvent {
  /** Row = prompt · n + sample. */
  row: number;
  prompt: number;
  sample: number;
  token: number;
  logprob: number;
  /** New text since the previous event of this row (held back while a UTF-8 character is incomplete). */
  delta: string;
  /** Set on the row's last token. */
  finishReason?: FinishReason;
}

export interface ScoreItem {
  context: Prompt;
  /** Text (encoded literally) or token ids whose log-probs after `context` are wanted. */
  continuation: string | number[];
}

export interface ScoreRequest extends RequestCommon {
  items: ScoreItem[];
}

export interface ScoredItem {
  tokens: number[];
  /** log π(tokens[i] | context, tokens[<i]). */
  logprobs: number[];
  sum: number;
  /** sum / tokens (0 for an empty continuation). */
  mean: number;
  /** Value head (critics only): V after the context's last token, the state before the continuation. */
  contextValue?: number;
  /** Value head (critics only): V after each continuation token. */
  values?: number[];
}

export interface ScoreResult {
  items: ScoredItem[];
  ms: number;
  adapter: string | null;
}

export interface TurnScoreRequest extends RequestCommon {
  /** Whole episodes in the chat template, e.g. with a 'hidden' message for the asymmetric critic. */
  episodes: ChatMessage[][];
  /** Whose messages are scored; default 'agent'. */
  role?: ChatMessage['role'];
}

/** One scored turn. */
export interface TurnScore {
  /** Index of the message in its episode. */
  message: number;
  /** Tokens scored: the content and the closing <|end|>. */
  tokens: number;
  logprobs: number[];
  sum: number;
  mean: number;
  /** Critic value V(s_t) at the turn's role token (the state before the reply), when the model has a value head. */
  value?: number;
}

export interface TurnScoreResult {
  episodes: TurnScore[][];
  ms: number;
  adapter: string | null;
}

/** A LoRA adapter in PEFT names (without `base_model.model.`), e.g. `model.layers.0.self_attn.q_proj.lora_A.weight`. */
export interface Adapter {
  spec: LoraSpec;
  weights: ModelWeights;
}

/**
 * Where a model comes from:
 *  - `url`: a models root with manifest.json (verified by sha256; cached for offline use);
 *  - `files`: bytes by path, e.g. picked by the user or written by a test: with `manifest.json`
 *    they are verified, otherwise `folder` is read as a plain Hugging Face-layout folder.
 */
export type ModelSource =
  { kind: 'url'; baseUrl: string; name: string; cache?: boolean } | { kind: 'files'; files: Record<string, Uint8Array>; name?: string; folder?: string };

export interface LoadOptions {
  /** Weights in fp32, or the blocks' linears in 4 bits. 'auto': 4-bit on WebGPU, fp32 on CPUs (faster there; docs/model.md). */
  precision?: 'auto' | 'fp32' | 'quant4';
  /**
   * The LoRA shape built into the graphs; any adapter of lower rank over a subset of targets fits.
   * null = no adapter inputs, unless the model ships an adapter (its folder's adapter/): then the slot
   * is that adapter's shape, since the shipped adapter is always registered and active.
   */
  adapterSlot?: LoraSpec | null;
  /** On WebGPU, keep the KV cache in GPU memory between decode steps (default true); false copies it through JS each step, for comparison. */
  gpuKv?: boolean;
}

export type LoadStage = 'manifest' | 'download' | 'verify' | 'parse' | 'build' | 'sessions' | 'ready';

export interface LoadProgress {
  model: string;
  stage: LoadStage;
  loadedBytes: number;
  totalBytes: number;
  /** The file being read, during 'download'. */
  file?: string;
  /** True when the bytes came from the offline cache. */
  fromCache?: boolean;
}

/** What was loaded. */
export interface ModelInfo {
  name: string;
  config: ModelConfig;
  heads: HeadsSpec;
  precision: 'fp32' | 'quant4';
  adapterSlot: LoraSpec | null;
  backend: BackendKind;
  /** Model files' total size. */
  bytes: number;
  /** sha256 checked against a manifest. */
  verified: boolean;
  /** Files served from the offline cache. */
  cachedFiles: number;
  loadMs: number;
  /** Parameters (base model). */
  params: number;
  /** config.json's "turnwise" section (role, contextTokens, maxReplyTokens, forge figures), when present. */
  turnwise?: ModelMeta;
}

/** What a policy agent needs from an engine; PolicyEngine and Remote<PolicyEngine> both satisfy it. */
export interface GenerateApi {
  generate(request: GenerateRequest): Promise<GenerateResult>;
  models(): ModelInfo[] | Promise<ModelInfo[]>;
}
