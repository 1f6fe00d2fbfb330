// Builds bench.worker.ts (transformers.js + the engine, on onnxruntime-web's wasm build) into
// dist/<dir>/ with Vite, as an ES module worker whose wasm file is a separate asset. Not part of
// the app build: only the browser engine benchmark loads it.
import { join } from 'node:path';
import { build } from 'vite';

/** Writes `<outDir>/bench.worker.js` (+ assets); returns its path relative to outDir. */
export async function buildBenchWorker(root: string, outDir: string): Promise<string> {
  await build({
    root,
    configFile: false,
    // assets resolve next to the worker, wherever dist/ serves it from
    base: './',
    publicDir: false,
    logLevel: 'warn',
    optimizeDeps: { exclude: ['onnxruntime-web'] },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      chunkSizeWarningLimit: 4096,
      rollupOptions: {
        input: join(root, 'bench/engineBrowser/bench.worker.ts'),
        output: { entryFileNames: 'bench.worker.js', format: 'es' },
        preserveEntrySignatures: 'strict',
      },
    },
  });
  return 'bench.worker.js';
}
