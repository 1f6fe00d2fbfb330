// The UI's handle on the trainer worker: a comlink proxy of the TrainerService class.
import { wrap, type Remote } from 'comlink';
import type { TrainerService } from '../../rl/algos/service.ts';

export type TrainerClient = Remote<TrainerService>;

export function spawnTrainerWorker(): { trainer: TrainerClient; worker: Worker } {
  const worker = new Worker(new URL('../../workers/trainer.worker.ts', import.meta.url), { type: 'module', name: 'trainer' });
  return { trainer: wrap<TrainerService>(worker), worker };
}
