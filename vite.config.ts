// Vite config for the lab. Why each setting (see DESIGN.md, "Testing here"):
// - ES workers, because the engines run in module workers;
// - onnxruntime-web excluded from dependency optimisation, so its wasm files resolve next to it;
// - COOP/COEP headers, without which the page is not cross-origin isolated and wasm threads
//   silently drop to one;
// - the Content-Security-Policy as a response header on the production server (preview, `npm start`):
//   a <meta> policy binds only the page, while a header also binds every worker script it serves, so
//   no worker can eval or importScripts a data: URL (issue 22 point 5). The dev server keeps the meta
//   tag only (Vite's client needs more). Keep the two policies the same.
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { serviceWorker } from './src/ui/offline/swPlugin.ts';

export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** The lab's policy, as in index.html's <meta> tag; 'wasm-unsafe-eval' lets ONNX Runtime compile wasm, nothing evals JS. */
export const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; frame-src 'none'; object-src 'none'; base-uri 'self'; form-action 'none'";

export default defineConfig({
  plugins: [svelte(), serviceWorker()],
  // Hash routing needs no history fallback; 'mpa' makes a missing model file a real 404, not index.html.
  appType: 'mpa',
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  server: { headers: isolationHeaders },
  preview: { headers: { ...isolationHeaders, 'Content-Security-Policy': CSP } },
  build: { target: 'es2022', chunkSizeWarningLimit: 1024 },
});
