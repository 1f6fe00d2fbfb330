// State of the Data view: the episode table (filters, paging), delete with undo, export and import
// with progress and a validation report, and storage used vs quota. All work goes through the
// TrajectoryStore; this class keeps the person's selection and the latest results.
// Training stores every rollout (thousands after a few runs, issue 49), so the table pages through
// the store's index 50 at a time — a page is one bounded cursor walk continuing where the previous
// one stopped (store/queries.ts), never a read of every episode — with the count beside it, filters
// by origin, and deletes a run's episodes in one write (with undo).
import { ALGO_NAMES } from '../../rl/algos/registry.ts';
import {
  encodeExport,
  importFile,
  isPairFormat,
  noPairsReason,
  EXPORT_FORMATS,
  type EpisodeFilter,
  type EpisodeSummary,
  type ExportFormat,
  type PageCursor,
  type ImportFormat,
  type PairingSummary,
  type RestoreToken,
  type RunRecord,
  type StorageInfo,
  type TrajectoryStore,
  type ValidationReport,
} from '../../rl/store/index.ts';

export interface Progress {
  label: string;
  done: number;
  total: number | null;
}

const PAGE = 50;

/** Ends an interrupted episode for good (stored as aborted, its turns kept): the Data view's Discard and the lab's banner alike. */
export function discardInterrupted(store: Pick<TrajectoryStore, 'abortEpisode'>, id: string): Promise<unknown> {
  return store.abortEpisode(id, 'discarded after an interruption');
}

/** The run filter's value for episodes that belong to no run. */
export const NO_RUN = '(none)';

/** Where episodes come from, as the store records it: no run (Play), a training run's rollouts, another run (Evaluate, the CLI), a file. */
export const ORIGINS = {
  play: 'played in Play (no run)',
  training: 'training rollouts',
  evaluation: 'evaluations (Evaluate, CLI)',
  imported: 'imported from a file',
} as const;
export type Origin = keyof typeof ORIGINS;

/** Whether a run is a training run (its algorithm is one the loop trains) rather than an evaluation. */
export const isTrainingRun = (r: Pick<RunRecord, 'algorithm'>): boolean => (ALGO_NAMES as readonly string[]).includes(r.algorithm);

/** "51–100 of 1,875": the rows a page shows among all that match. */
export function pageLabel(first: number, shown: number, total: number): string {
  const n = (x: number) => x.toLocaleString('en');
  return shown === 0 ? `0 of ${n(total)}` : `${n(first + 1)}–${n(first + shown)} of ${n(total)}`;
}

/** A run's episodes the person asked to delete, awaiting the confirm. */
export interface RunDeletion {
  runId: string;
  name: string;
  count: number;
}

export class DataState {
  episodes = $state.raw<EpisodeSummary[]>([]);
  total = $state(0);
  /** run: '' for all, NO_RUN for episodes outside any run (Play), else a run id (a training run, an evaluation). */
  /** origin: '' for all, else an ORIGINS key. */
  filter = $state<{ family: string; split: string; outcome: string; search: string; run: string; origin: Origin | '' }>({
    family: '',
    split: '',
    outcome: '',
    search: '',
    run: '',
    origin: '',
  });
  /** The page shown (0-based); pageStarts[k] is where page k starts (null: the newest). */
  page = $state(0);
  private pageStarts: (PageCursor | null)[] = [null];
  /** Whether a page follows the one shown. */
  hasNext = $state(false);
  /** The run whose episodes wait for the confirm of a bulk delete. */
  confirming = $state.raw<RunDeletion | null>(null);
  /** The runs the store holds, newest last, for the run filter. */
  runs = $state.raw<RunRecord[]>([]);
  selected = $state<string[]>([]);
  undo = $state.raw<RestoreToken | null>(null);
  storage = $state.raw<StorageInfo | null>(null);
  progress = $state.raw<Progress | null>(null);
  report = $state.raw<ValidationReport | null>(null);
  message = $state<string | null>(null);
  /** Whether a page has been read from the store: until then an empty list means "not read yet", not "no episodes". */
  loaded = $state(false);
  private request = 0;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly store: () => TrajectoryStore | null) {}

  /** Loads the first page and keeps it fresh as this or another tab writes. */
  attach(): () => void {
    void this.refresh();
    this.unsubscribe = this.store()?.subscribe(() => void this.refresh()) ?? null;
    return () => this.unsubscribe?.();
  }

  private storeFilter(runs: readonly RunRecord[] = this.runs): EpisodeFilter {
    const f: EpisodeFilter = {};
    const origin = this.filter.origin;
    if (this.filter.run) f.runId = this.filter.run === NO_RUN ? null : this.filter.run;
    else if (origin === 'play') f.runId = null;
    if (origin === 'training' || origin === 'evaluation') f.runIds = runs.filter((r) => isTrainingRun(r) === (origin === 'training')).map((r) => r.id);
    if (origin === 'imported') f.imported = true;
    if (this.filter.family) f.family = this.filter.family;
    if (this.filter.split === 'train' || this.filter.split === 'test') f.split = this.filter.split;
    if (this.filter.outcome) f.outcome = this.filter.outcome as EpisodeFilter['outcome'];
    return f;
  }

  /** The runs the run filter offers: those of the chosen origin. */
  get runChoices(): RunRecord[] {
    const o = this.filter.origin;
    return o === 'training' || o === 'evaluation' ? this.runs.filter((r) => isTrainingRun(r) === (o === 'training')) : this.runs;
  }

  /** The row number of the first row shown (0-based). */
  get first(): number {
    return this.page * PAGE;
  }

  /** A filter changed: back to the newest page. */
  filterChanged(): Promise<void> {
    this.page = 0;
    this.pageStarts = [null];
    this.confirming = null;
    return this.refresh();
  }

  /** The next (+1) or previous (−1) page. */
  async turnPage(step: 1 | -1): Promise<void> {
    if (step === 1 && !this.hasNext) return;
    this.page = Math.max(0, this.page + step);
    await this.refresh();
  }

  /** Re-reads the page shown; a newer call supersedes an older one still in flight. */
  async refresh(): Promise<void> {
    const store = this.store();
    if (!store) return;
    const id = ++this.request;
    const runs = await store.listRuns();
    const filter = this.storeFilter(runs);
    const at = this.page;
    const [page, total, storage] = await Promise.all([
      store.listEpisodes(filter, { limit: PAGE, after: this.pageStarts[at] ?? null }),
      store.countEpisodes(filter),
      store.estimateStorage(),
    ]);
    if (id !== this.request) return;
    // a page emptied by a delete steps back to the last page that has rows
    if (page.items.length === 0 && at > 0) {
      this.page = at - 1;
      return this.refresh();
    }
    this.pageStarts[at + 1] = page.next;
    this.pageStarts.length = at + 2;
    this.hasNext = page.next !== null;
    this.runs = runs;
    const q = this.filter.search.trim().toLowerCase();
    this.episodes = q
      ? page.items.filter((e) => `${e.family} ${e.seed} ${e.model.policy} ${e.model.adapter ?? ''} ${e.imported?.source ?? ''}`.toLowerCase().includes(q))
      : page.items;
    this.total = total;
    this.storage = storage;
    this.loaded = true;
  }

  toggle(id: string): void {
    this.selected = this.selected.includes(id) ? this.selected.filter((x) => x !== id) : [...this.selected, id];
  }

  async deleteSelected(): Promise<void> {
    const store = this.store();
    if (!store || !this.selected.length) return;
    this.undo = await store.deleteEpisodes(this.selected);
    this.message = `Deleted ${this.selected.length} episode${this.selected.length === 1 ? '' : 's'}.`;
    this.selected = [];
    await this.refresh();
  }

  /** Asks to delete every episode of the run filter's run: counts them for the confirm, which names the count. */
  async askDeleteRun(): Promise<void> {
    const store = this.store();
    const run = this.runs.find((r) => r.id === this.filter.run);
    if (!store || !run) return;
    this.confirming = { runId: run.id, name: run.name, count: await store.countEpisodes({ runId: run.id }) };
  }

  /** Deletes the confirmed run's episodes in one write (undo brings them back). */
  async deleteRun(): Promise<void> {
    const store = this.store();
    const c = this.confirming;
    this.confirming = null;
    if (!store || !c) return;
    this.undo = await store.deleteEpisodes({ runId: c.runId });
    const n = this.undo.ids.length;
    this.message = `Deleted ${n.toLocaleString('en')} episode${n === 1 ? '' : 's'} of run ${c.name}.`;
    this.selected = [];
    await this.refresh();
  }

  async undoDelete(): Promise<void> {
    const store = this.store();
    if (!store || !this.undo) return;
    const n = await store.restoreEpisodes(this.undo);
    this.undo = null;
    this.message = `Restored ${n} episode${n === 1 ? '' : 's'}.`;
    await this.refresh();
  }

  /** Ends an interrupted episode for good (stored as aborted, its turns kept for credit and export). */
  async discard(id: string): Promise<void> {
    const store = this.store();
    if (!store) return;
    try {
      await discardInterrupted(store, id);
      this.message = 'Discarded the interrupted episode (kept as aborted, with its turns).';
    } catch (e) {
      this.message = `Could not discard it: ${(e as Error).message}`;
    }
    await this.refresh();
  }

  /**
   * Streams every listed episode into a file of the chosen format and offers it for download. A
   * pair format (dpo, turn-dpo) that forms no pair offers no empty file: the message says why.
   */
  async exportAll(format: ExportFormat): Promise<void> {
    const store = this.store();
    if (!store) return;
    const filter = this.storeFilter();
    const total = await store.countEpisodes(filter);
    const label = `Exporting ${format}`;
    this.progress = { label, done: 0, total };
    try {
      const chunks: Uint8Array[] = [];
      const seen: { pairing?: PairingSummary } = {};
      const records = store.exportRecords(filter, { onProgress: (done) => (this.progress = { label, done, total }) });
      for await (const chunk of encodeExport(format, records, { onPairing: (p) => (seen.pairing = p) })) chunks.push(chunk);
      const episodes = `${total} episode${total === 1 ? '' : 's'}`;
      const pairing = seen.pairing;
      const none = pairing ? noPairsReason(pairing) : null;
      if (isPairFormat(format) && none) {
        this.message = `Nothing exported: no ${format} pairs in ${episodes}: ${none}. Play one task again (Settings: a fixed episode seed) with another agent, or export a training run, which plays each task K times.`;
        return;
      }
      const meta = EXPORT_FORMATS[format];
      const url = URL.createObjectURL(new Blob(chunks as BlobPart[], { type: meta.mime }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `turnwise-episodes${meta.extension}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      const pairs = pairing ? ` (${pairing.pairs} pair${pairing.pairs === 1 ? '' : 's'})` : '';
      this.message = `Exported ${episodes} as ${format}${pairs}.`;
    } catch (e) {
      this.message = `Export failed: ${(e as Error).message}`;
    } finally {
      this.progress = null;
    }
  }

  /** Validates the file, then imports all of it in one transaction, or nothing. */
  async importFile(file: File, format: ImportFormat | 'auto' = 'auto'): Promise<void> {
    const store = this.store();
    if (!store) {
      this.message = `Nothing imported: the trajectory store is not open yet; choose ${file.name} again once it is.`;
      return;
    }
    this.report = null;
    this.progress = { label: `Checking ${file.name}`, done: 0, total: file.size };
    try {
      const source = streamOf(file);
      const { report, result } = await importFile(store, source, {
        format,
        source: file.name,
        onProgress: (p) => (this.progress = { label: `Checking ${file.name}`, done: p.bytes, total: file.size }),
      });
      this.report = report;
      const read = report.format ? ` (read as ${report.detected})` : '';
      this.message = result
        ? `Imported ${result.episodes} episodes (${result.turns} turns) from ${file.name}${result.skipped ? `; ${result.skipped} already present` : ''}${read}.`
        : `Nothing imported: ${file.name} has ${report.errors.length}${report.stoppedEarly ? '+' : ''} problem(s)${read}.`;
      await this.refresh();
    } catch (e) {
      this.message = `Import failed: ${(e as Error).message}`;
    } finally {
      this.progress = null;
    }
  }
}

/** The file's bytes as an async iterable, read in chunks (large files never sit in memory whole). */
async function* streamOf(file: File): AsyncGenerator<Uint8Array> {
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
}
