// The UI's handle on the policy worker: a comlink proxy of the PolicyEngine class.
import { wrap, type Remote } from 'comlink';
import type { PolicyEngine } from '../../rl/runtime/api.ts';

export type PolicyClient = Remote<PolicyEngine>;

export function spawnPolicyWorker(): { engine: PolicyClient; worker: Worker } {
  const worker = new Worker(new URL('../../workers/policy.worker.ts', import.meta.url), { type: 'module', name: 'policy' });
  return { engine: wrap<PolicyEngine>(worker), worker };
}

/** Absolute URL of the shipped models folder, next to the page. */
export function modelsUrl(): string {
  return new URL('models/', document.baseURI).href;
}
