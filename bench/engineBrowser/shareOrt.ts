// Hands the onnxruntime-web build that the engine runs on wasm in browsers (ort.ts wasmModule: the
// plain wasm build) to transformers.js through its `Symbol.for('onnxruntime')` hook, with a local
// wasm file so nothing is fetched from a CDN. Imported before transformers.js: ES modules run in
// import order, and transformers.js reads the hook when it is evaluated.
import * as ort from 'onnxruntime-web/wasm';
import wasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.wasm?url';

ort.env.wasm.wasmPaths = { wasm: new URL(wasmUrl, import.meta.url).href };
(globalThis as Record<symbol, unknown>)[Symbol.for('onnxruntime')] = ort;
