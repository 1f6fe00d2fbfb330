// Vite config for the lab. Why each setting (see DESIGN.md, "Testing here"):
// - ES workers, because the engines run in module workers;
// - onnxruntime-web excluded from dependency optimisation, so its wasm files resolve next to it;
// - COOP/COEP headers, without which the page is not cross-origin isolated and wasm threads
//   silently drop to one.
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { serviceWorker } from './src/ui/offline/swPlugin.ts';

export const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [svelte(), serviceWorker()],
  // Hash routing needs no history fallback; 'mpa' makes a missing model file a real 404, not index.html.
  appType: 'mpa',
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
  build: { target: 'es2022', chunkSizeWarningLimit: 1024 },
});
