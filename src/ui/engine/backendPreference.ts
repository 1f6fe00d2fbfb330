// The compute backend the person chose (Settings, or ?backend= in the URL, which wins over the saved
// setting when the page opens). One value for the whole page, so the policy worker (Lab.boot) and the
// trainer worker (train.svelte.ts start) run on the same choice.
import type { BackendPreference } from '../../rl/runtime/api.ts';

const KEY = 'turnwise.backend';

const parse = (s: string | null): BackendPreference | null => (s === 'auto' || s === 'webgpu' || s === 'wasm' ? s : null);

let current: BackendPreference | null = null;

/** The backend preference now: set in Settings this session, else ?backend=, else the saved one, else 'auto'. */
export function backendPreference(): BackendPreference {
  current ??= parse(new URLSearchParams(location.search).get('backend')) ?? parse(localStorage.getItem(KEY)) ?? 'auto';
  return current;
}

/** Chooses the backend for workers started from now on, and saves it for later visits. */
export function setBackendPreference(p: BackendPreference): void {
  current = p;
  localStorage.setItem(KEY, p);
}
