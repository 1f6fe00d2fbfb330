// Trainer worker entry: exposes the in-thread TrainerService over comlink (docs/style.md point 4).
import { expose } from 'comlink';
import { TrainerService } from '../rl/algos/service.ts';

expose(new TrainerService());
