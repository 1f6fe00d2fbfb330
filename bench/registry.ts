// Every benchmark entry; later capabilities add theirs here.
import type { BenchEntry } from './harness.ts';
import { probe } from './entries/probe.ts';
import { model } from './entries/model.ts';
import { credit } from './entries/credit.ts';
import { store } from './entries/store.ts';
import { trainStep } from './entries/trainStep.ts';
import { envs } from './entries/envs.ts';
import { rolloutBench } from './entries/rollout.ts';
import { engine } from './entries/engine.ts';
import { learning } from './entries/learning.ts';
import { ui } from './entries/ui.ts';
import { engineBrowser } from './entries/engineBrowser.ts';
import { iteration } from './entries/iteration.ts';
import { forgeContext } from './entries/forgeContext.ts';

export const BENCHES: BenchEntry[] = [probe, model];
BENCHES.push(store);
BENCHES.push(credit);
BENCHES.push(trainStep);
BENCHES.push(envs);
BENCHES.push(engine);
BENCHES.push(rolloutBench);
BENCHES.push(learning);
BENCHES.push(ui);
BENCHES.push(engineBrowser);
BENCHES.push(iteration);
BENCHES.push(forgeContext);
