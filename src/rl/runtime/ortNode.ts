// onnxruntime-node, loaded only in Node and only on request: it is ~4× faster than wasm on these
// CPUs (docs/design.md, "Testing here": 129 vs 31 GFLOP/s), so heavy Node-side work (the forge, CLI
// training) uses it. Its API is the same onnxruntime-common surface as onnxruntime-web's.
import type * as OrtWeb from 'onnxruntime-web';

export type OrtModule = typeof OrtWeb;

let cached: Promise<OrtModule | null> | null = null;

/** Resolves with onnxruntime-node, or null when it cannot load here (browser, missing binary). */
export function loadOrtNode(): Promise<OrtModule | null> {
  if (typeof process === 'undefined' || !process.versions?.node) return Promise.resolve(null);
  // A variable specifier keeps bundlers from pulling the native package into the browser build.
  const specifier = 'onnxruntime-node';
  cached ??= import(/* @vite-ignore */ specifier).then(
    (m: { default?: OrtModule } & OrtModule) => (m.default ?? m) as OrtModule,
    () => {
      cached = null;
      return null;
    },
  );
  return cached;
}
