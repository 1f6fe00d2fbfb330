// The lab's top-level state: which view is open, the compute backend and its self-test, the
// models' status, and the state that must outlive a view: Play's episode (a running one waits for
// the person while another view is open), its live credit, and the policy adapters. Components read
// it and call its methods; they hold no logic of their own.
import { proxy } from 'comlink';
import type { BackendInfo, BackendPreference, EngineEvent, SelfTestResult, ModelsReport, LoadProgress, ModelInfo } from '../../rl/runtime/api.ts';
import { modelsUrl, spawnPolicyWorker, type PolicyClient } from '../engine/policyClient.ts';
import { backendPreference, setBackendPreference } from '../engine/backendPreference.ts';
import { TrajectoryStore } from '../../rl/store/index.ts';
import { PURGE_AFTER_MS } from './retention.ts';
import { Preferences } from './preferences.svelte.ts';
import { Workshop, type Presets } from './workshop.svelte.ts';
import { TrainState } from './train.svelte.ts';
import { PlaySession } from './play.svelte.ts';
import { LiveCredit } from './liveCredit.svelte.ts';
import { AdapterShelf } from './adapters.svelte.ts';
import { discardInterrupted } from './data.svelte.ts';

export const VIEWS = ['play', 'credit', 'train', 'evaluate', 'data', 'settings'] as const;
export type ViewId = (typeof VIEWS)[number];

export const VIEW_LABELS: Record<ViewId, string> = {
  play: 'Play',
  credit: 'Credit',
  train: 'Train',
  evaluate: 'Evaluate',
  data: 'Data',
  settings: 'Settings',
};

function viewFromHash(): ViewId {
  const id = location.hash.replace(/^#\/?/, '');
  return (VIEWS as readonly string[]).includes(id) ? (id as ViewId) : 'play';
}

export type Phase = 'starting' | 'ready' | 'error';

/** A button on a notice: what it says and does (the notice closes after it runs). */
export interface NoticeAction {
  label: string;
  run: () => void | Promise<void>;
}

/** A message worth a person's attention, with what they can do about it right there. */
export interface Notice {
  text: string;
  actions: NoticeAction[];
}

export class Lab {
  view = $state<ViewId>(viewFromHash());
  phase = $state<Phase>('starting');
  preference = $state<BackendPreference>(backendPreference());
  backend = $state.raw<BackendInfo | null>(null);
  selfTest = $state.raw<SelfTestResult | null>(null);
  models = $state.raw<ModelsReport | null>(null);
  /** Messages worth a person's attention (fallbacks, failures, interrupted episodes), newest last. */
  notices = $state<Notice[]>([]);
  error = $state<string | null>(null);
  /** The trajectory store (IndexedDB); null until open or when IndexedDB is unavailable. */
  store = $state.raw<TrajectoryStore | null>(null);
  /** The shipped models loaded into the policy worker (policy, critic), by name. */
  loaded = $state.raw<Record<string, ModelInfo>>({});
  /** Model loading in progress (bytes and stage), null when idle. */
  loading = $state.raw<LoadProgress | null>(null);
  /** The models are checked and loaded (or could not be): until then the policy counts as loading. */
  modelsSettled = $state(false);
  /** Seeds and sampling defaults (Settings). */
  readonly preferences = new Preferences();
  /** Settings a view applies once when it opens (set by the workshop). */
  presets = $state.raw<Presets>({});
  readonly workshop = new Workshop(this);
  /** The Train view's run: owned here so a run, its charts and its adapters outlive a switch to another view. */
  readonly train = new TrainState(
    () => this.policyEngine(),
    () => this.store,
    () => void this.adapters.refresh(),
  );
  /** The policy adapters in the worker and in the store (Play, Evaluate). */
  readonly adapters = new AdapterShelf(
    () => (this.loaded.policy ? this.policyEngine() : null),
    () => this.store,
  );
  /** Play's episode: created once, so switching views neither ends nor forgets it. */
  readonly play = new PlaySession({
    store: () => this.store,
    openedStore: () => this.openedStore(),
    engine: () => (this.loaded.policy ? this.policyEngine() : null),
    loaded: (model) => !!this.loaded[model],
    policyLoading: () => this.phase !== 'error' && !this.modelsSettled,
    sampling: () => ({ ...this.preferences.data.sampling }),
    nextSeed: () => this.preferences.nextSeed(),
    policyMeta: () => this.loaded.policy?.turnwise,
    loadAdapter: (id) => this.adapters.ensureLoaded(id),
  });
  /** Play's live credit: the estimators shown, their sliders, the critic's scores of the episode so far. */
  readonly liveCredit = new LiveCredit(() => !!this.loaded.critic);

  /** An interrupted episode the Data view asked Play to continue; Play takes it once it opens. */
  resumeRequest = $state<string | null>(null);

  /** Opens Play on a stored interrupted episode, to continue it. */
  resumeEpisode(id: string): void {
    this.resumeRequest = id;
    this.go('play');
  }

  /** Takes a view's preset, if any, so it applies once. */
  takePreset<K extends keyof Presets>(view: K): Presets[K] | undefined {
    const p = this.presets[view];
    if (p) this.presets = { ...this.presets, [view]: undefined };
    return p;
  }
  storeError = $state<string | null>(null);
  /** openStore's one attempt, shared by every caller (Play waits on it through openedStore). */
  private opening: Promise<void> | null = null;

  private engine: PolicyClient | null = null;
  private worker: Worker | null = null;

  readonly statusText = $derived.by(() => {
    if (this.phase === 'error') return `Backend error: ${this.error}`;
    if (!this.backend) return 'Starting compute backend…';
    const b = this.backend;
    if (b.kind === 'webgpu') return `WebGPU · ${b.adapter?.vendor} ${b.adapter?.architecture}${b.adapter?.software ? ' (software)' : ''}`;
    return `wasm · ${b.threads} thread${b.threads === 1 ? '' : 's'}`;
  });

  constructor() {
    addEventListener('hashchange', () => (this.view = viewFromHash()));
  }

  /** Shows a notice, with buttons for what the person can do about it. */
  notify(text: string, actions: NoticeAction[] = []): void {
    this.notices.push({ text, actions });
  }

  /**
   * Says that Play episodes were left unfinished when the lab last closed, with Resume (the latest)
   * and Discard right in the notice, so continuing one is one click, not two views away.
   */
  private async noticeInterrupted(store: TrajectoryStore, ids: readonly string[]): Promise<void> {
    const found = (await store.getEpisodes(ids)).filter((e) => e !== null);
    if (!found.length) return;
    const latest = found.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    const one = found.length === 1;
    const text = one
      ? `A ${latest.task.family} episode was interrupted when the lab last closed.`
      : `${found.length} episodes were interrupted when the lab last closed.`;
    const discard = async () => {
      for (const e of found) await discardInterrupted(store, e.id).catch(() => undefined);
    };
    this.notify(text, [
      { label: one ? 'Resume it' : `Resume the latest (${latest.task.family})`, run: () => this.resumeEpisode(latest.id) },
      { label: one ? 'Discard it' : `Discard all ${found.length}`, run: discard },
      ...(one ? [] : [{ label: 'Open in Data', run: () => this.go('data') }]),
    ]);
  }

  go(view: ViewId): void {
    location.hash = `/${view}`;
    this.view = view;
  }

  /** The store once openStore has opened it or failed to (then null, and why: storeError). */
  async openedStore(): Promise<{ store: TrajectoryStore | null; error: string | null }> {
    await this.openStore();
    return { store: this.store, error: this.storeError };
  }

  /** Opens the trajectory store, once however often it is called; episodes left in progress by a closed tab show as interrupted. */
  openStore(): Promise<void> {
    return (this.opening ??= this.open());
  }

  private async open(): Promise<void> {
    try {
      const store = await TrajectoryStore.open();
      store.subscribe((e) => {
        if (e.type === 'reload-required') this.notify(e.message);
        // a training run's checkpoint (another worker's store) names a new or newer adapter
        if (e.type === 'adapter') this.adapterChanged();
      });
      if (store.interrupted.length) void this.noticeInterrupted(store, store.interrupted);
      void store.requestPersistence();
      // a deleted episode stays restorable (Undo) while its tab lives; past that, its space is freed here
      void store.purgeDeleted(PURGE_AFTER_MS);
      this.store = store;
      void this.adapters.refresh();
    } catch (e) {
      this.storeError = `Episodes cannot be saved: ${(e as Error).message}`;
      this.notify(this.storeError);
    }
  }

  /** Starts the policy worker, picks the backend, runs the probe self-test, checks the models. */
  async boot(): Promise<void> {
    this.phase = 'starting';
    this.error = null;
    this.modelsSettled = false;
    try {
      this.worker?.terminate();
      const { engine, worker } = spawnPolicyWorker();
      this.engine = engine;
      this.worker = worker;
      worker.addEventListener('error', (e) => this.fail(`the policy worker crashed: ${e.message}`));
      await engine.subscribe(proxy((e: EngineEvent) => this.onEngineEvent(e)));
      this.backend = await engine.init(this.preference);
      this.selfTest = await engine.selfTest(4);
      this.backend = await engine.backendInfo();
      if (!this.selfTest.ok) this.notify(`Self-test off by ${this.selfTest.maxAbsError.toExponential(1)} on ${this.selfTest.backend}`);
      this.phase = 'ready';
      this.models = await engine.verifyModels(modelsUrl());
      if (this.models.found)
        await this.loadModels(
          engine,
          this.models.models.map((m) => m.name),
        );
    } catch (e) {
      this.fail((e as Error).message);
    } finally {
      this.modelsSettled = true;
    }
  }

  /** The policy worker's engine once it is running (Play's policy agent uses it). */
  policyEngine(): PolicyClient | null {
    return this.phase === 'ready' ? this.engine : null;
  }

  /**
   * Loads the shipped models into the worker. The service worker already keeps model files for
   * offline use, so the engine's own cache is off for them.
   */
  private async loadModels(engine: PolicyClient, names: string[]): Promise<void> {
    const loaded: Record<string, ModelInfo> = {};
    for (const name of names) {
      try {
        loaded[name] = await engine.load(
          name,
          { kind: 'url', baseUrl: modelsUrl(), name, cache: false },
          {},
          proxy((p: LoadProgress) => (this.loading = p)),
        );
      } catch (e) {
        this.notify(`The ${name} model could not be loaded: ${(e as Error).message}`);
      }
    }
    this.loading = null;
    this.loaded = loaded;
    await this.adapters.refresh();
  }

  private adapterTimer: ReturnType<typeof setTimeout> | null = null;

  /** One refresh for the burst of adapter rows a checkpoint writes. */
  private adapterChanged(): void {
    if (this.adapterTimer) clearTimeout(this.adapterTimer);
    this.adapterTimer = setTimeout(() => {
      this.adapterTimer = null;
      void this.adapters.refresh();
    }, 250);
  }

  /** Changes the backend preference, remembers it, and restarts the engine. */
  async setPreference(p: BackendPreference): Promise<void> {
    this.preference = p;
    setBackendPreference(p);
    this.backend = null;
    this.selfTest = null;
    await this.boot();
  }

  /** Diagnostic: destroys the GPU device to exercise the fallback, then re-runs the self-test. */
  async simulateDeviceLoss(): Promise<void> {
    if (!this.engine) return;
    try {
      await this.engine.loseDevice();
      this.selfTest = await this.engine.selfTest(4);
      this.backend = await this.engine.backendInfo();
    } catch (e) {
      this.notify((e as Error).message);
    }
  }

  private onEngineEvent(e: EngineEvent): void {
    this.backend = e.info;
    if (e.kind === 'fallback') this.notify(`${e.reason}; now running on wasm`);
  }

  private fail(message: string): void {
    this.phase = 'error';
    this.error = message;
  }
}
