// Entry of the lab page: mounts the Svelte app and boots the compute backend.
import { mount } from 'svelte';
import App from './App.svelte';
import { Lab } from './state/lab.svelte.ts';
import './theme.css';

const lab = new Lab();
mount(App, { target: document.getElementById('app')!, props: { lab } });
void lab.openStore();
void lab.boot();
