// The UI's handle on the trainer worker: a comlink proxy of the TrainerService class, whose init
// trains on the lab's backend setting (backendPreference.ts) unless the call names a backend, so
// Train follows Settings: 'auto' passes over a software WebGPU adapter there too.
import { wrap, type Remote } from 'comlink';
import type { TrainerService } from '../../rl/algos/service.ts';
import type { BackendPreference } from '../../rl/runtime/api.ts';
import { backendPreference } from './backendPreference.ts';

export type TrainerClient = Remote<TrainerService>;

export function spawnTrainerWorker(backend: () => BackendPreference = backendPreference): { trainer: TrainerClient; worker: Worker } {
  const worker = new Worker(new URL('../../workers/trainer.worker.ts', import.meta.url), { type: 'module', name: 'trainer' });
  const remote = wrap<TrainerService>(worker);
  const init = (opts: Parameters<TrainerClient['init']>[0]) => remote.init({ backend: backend(), ...opts });
  const trainer = new Proxy(remote, { get: (target, key, receiver) => (key === 'init' ? init : Reflect.get(target, key, receiver)) });
  return { trainer, worker };
}
