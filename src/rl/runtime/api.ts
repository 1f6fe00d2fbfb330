// Everything the UI takes from the runtime and the model, in one place (docs/architecture.md): the
// engines' types that cross comlink, the model metadata readers, and the sampling defaults. The lint
// rule in eslint/layers.js lets src/ui import the runtime only through this file, so the UI cannot
// reach ONNX Runtime, sessions or graph code by accident.
export type { BackendInfo, BackendPreference } from './ort.ts';
export type { EngineEvent, PolicyEngine, SelfTestResult } from './policyEngine.ts';
export type { Adapter, GenerateApi, LoadProgress, ModelInfo, TokenEvent } from './engine/types.ts';
export { resolveSampling, type SamplingParams } from './engine/sampling.ts';
export type { ModelsReport } from '../model/manifest.ts';
export type { ModelMeta } from '../model/meta.ts';
export { taskOptions } from '../model/meta.ts';
export type { ModelConfig } from '../model/llama/config.ts';
