// Node only: what the command line and the benches need to roll out — the shipped models opened
// from disk through the inference engine (sha256-verified against manifest.json), and the agent
// kinds `--agent` names as BatchAgents.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LessonStart } from '../envs/family.ts';
import type { JsonObject } from '../envs/types.ts';
import type { FamilyName } from '../envs/registry.ts';
import { fromHfConfig } from '../model/llama/config.ts';
import { taskOptions } from '../model/meta.ts';
import { nodeReader } from '../model/folder/nodeIo.ts';
import { parseManifest } from '../model/manifest.ts';
import { PolicyEngine } from '../runtime/policyEngine.ts';
import type { BackendPreference } from '../runtime/ort.ts';
import { familyAgent, PolicyBatchAgent, type BatchAgent } from './agents.ts';
import { RolloutError } from './rollout.ts';

/** Agent kinds for --agent. */
export const AGENT_KINDS = ['policy', 'expert', 'noisy', 'random'] as const;
export type AgentKindName = (typeof AGENT_KINDS)[number];

/** Which models to open and how. */
export interface OpenModelsOptions {
  /** Models root with manifest.json (public/models). */
  root: string;
  /** 'node' (onnxruntime-node) or 'wasm' (onnxruntime-web). */
  backend: BackendPreference;
  /** Loaded names among 'policy' and 'critic'. */
  models: readonly ('policy' | 'critic')[];
  /** The manifest model loaded as 'policy': the shipped policy (default) or a lesson's student (envs/family.ts LessonStart). */
  policyFrom?: LessonStart;
  /** 'auto' (fp32 on CPUs) or the shipped 4-bit placement. */
  precision?: 'auto' | 'fp32' | 'quant4';
}

/** An initialised engine with the requested models loaded; the caller disposes it. */
export async function openModels(opts: OpenModelsOptions): Promise<PolicyEngine> {
  if (!existsSync(join(opts.root, 'manifest.json'))) {
    throw new RolloutError('bad-config', `no models at ${opts.root} (manifest.json is missing): run \`npm run forge\` or pass --models DIR`);
  }
  if (opts.policyFrom === 'student' && opts.models.includes('policy')) await requireStudent(opts.root);
  const engine = new PolicyEngine();
  try {
    await engine.init(opts.backend);
    for (const name of opts.models) {
      await engine.loadFrom(
        name,
        { kind: 'reader', read: nodeReader(opts.root), name: name === 'policy' ? (opts.policyFrom ?? 'policy') : name, manifest: true },
        { adapterSlot: null, precision: opts.precision ?? 'auto' },
      );
    }
  } catch (e) {
    await engine.dispose();
    throw e;
  }
  return engine;
}

/** Refuses, in words, a models folder whose manifest has no student (a lesson that starts from one needs it). */
export async function requireStudent(root: string): Promise<void> {
  const bytes = await nodeReader(root)('manifest.json');
  const manifest = bytes ? parseManifest(new TextDecoder().decode(bytes), join(root, 'manifest.json')) : null;
  if (!manifest?.models.student)
    throw new RolloutError(
      'bad-config',
      `this lesson starts from the forge's student, and ${join(root, 'manifest.json')} lists none: pass --models with one (npx turnwise forge --student K writes it)`,
    );
}

/**
 * The task options the policy under `root` was forged on for `family` (its config.json
 * turnwise.tasks; model/meta.ts), read from that one file so scripted agents pose the same tasks
 * without loading the model; undefined when the family plays with its defaults. The policy's folder is
 * the manifest's (a forge's progress folder keeps it under stage-K/), policy/ without one.
 */
export async function forgedTaskOptions(root: string, family: FamilyName): Promise<JsonObject | undefined> {
  const read = nodeReader(root);
  const manifest = await read('manifest.json');
  const folder = manifest ? (parseManifest(new TextDecoder().decode(manifest), join(root, 'manifest.json')).models.policy?.folder ?? 'policy') : 'policy';
  const bytes = await read(`${folder}/config.json`);
  if (!bytes) return undefined;
  return taskOptions(fromHfConfig(JSON.parse(new TextDecoder().decode(bytes)), join(root, `${folder}/config.json`)).turnwise, family);
}

/** A BatchAgent of the named kind (policy: needs an engine with 'policy' loaded). */
export async function batchAgent(
  kind: AgentKindName,
  family: FamilyName,
  opts: { engine?: PolicyEngine; noise?: number; temperature?: number; maxBatch?: number },
): Promise<BatchAgent> {
  if (kind === 'policy') {
    if (!opts.engine) throw new RolloutError('bad-config', 'the policy agent needs an engine with the policy loaded');
    return PolicyBatchAgent.create(opts.engine, { sampling: { temperature: opts.temperature ?? 1 }, ...(opts.maxBatch ? { maxBatch: opts.maxBatch } : {}) });
  }
  return familyAgent(kind, family, opts.noise ?? 0.3);
}
