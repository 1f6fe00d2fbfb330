// Entry of the lab page: mounts the Svelte app and boots the compute backend.
import { mount } from 'svelte';
import App from './App.svelte';
import { Lab } from './state/lab.svelte.ts';
import './theme.css';

const lab = new Lab();
mount(App, { target: document.getElementById('app')!, props: { lab } });
// Offline after the first visit (production builds only; the dev server must not be cached).
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register('./sw.js').catch((e: Error) => lab.notify(`Offline mode is unavailable: ${e.message}`));
}

void lab.openStore();
void lab.boot();
