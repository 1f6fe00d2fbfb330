// Every benchmark entry; later capabilities add theirs here.
import type { BenchEntry } from './harness.ts';
import { probe } from './entries/probe.ts';
import { model } from './entries/model.ts';

export const BENCHES: BenchEntry[] = [probe, model];
