// State of the Data view: the episode table (filters, paging), delete with undo, export and import
// with progress and a validation report, and storage used vs quota. All work goes through the
// TrajectoryStore; this class keeps the person's selection and the latest results.
import {
  encodeExport,
  importFile,
  isPairFormat,
  noPairsReason,
  EXPORT_FORMATS,
  type EpisodeFilter,
  type EpisodeSummary,
  type ExportFormat,
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

export class DataState {
  episodes = $state.raw<EpisodeSummary[]>([]);
  total = $state(0);
  /** run: '' for all, NO_RUN for episodes outside any run (Play), else a run id (a training run, an evaluation). */
  filter = $state<{ family: string; split: string; outcome: string; search: string; run: string }>({ family: '', split: '', outcome: '', search: '', run: '' });
  /** The runs the store holds, newest last, for the run filter. */
  runs = $state.raw<RunRecord[]>([]);
  selected = $state<string[]>([]);
  undo = $state.raw<RestoreToken | null>(null);
  storage = $state.raw<StorageInfo | null>(null);
  progress = $state.raw<Progress | null>(null);
  report = $state.raw<ValidationReport | null>(null);
  message = $state<string | null>(null);
  private request = 0;
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly store: () => TrajectoryStore | null) {}

  /** Loads the first page and keeps it fresh as this or another tab writes. */
  attach(): () => void {
    void this.refresh();
    this.unsubscribe = this.store()?.subscribe(() => void this.refresh()) ?? null;
    return () => this.unsubscribe?.();
  }

  private storeFilter(): EpisodeFilter {
    const f: EpisodeFilter = {};
    if (this.filter.run) f.runId = this.filter.run === NO_RUN ? null : this.filter.run;
    if (this.filter.family) f.family = this.filter.family;
    if (this.filter.split === 'train' || this.filter.split === 'test') f.split = this.filter.split;
    if (this.filter.outcome === 'imported') f.imported = true;
    else if (this.filter.outcome) f.outcome = this.filter.outcome as EpisodeFilter['outcome'];
    return f;
  }

  /** Re-reads the list; a newer call supersedes an older one still in flight. */
  async refresh(): Promise<void> {
    const store = this.store();
    if (!store) return;
    const id = ++this.request;
    const filter = this.storeFilter();
    const [page, total, storage, runs] = await Promise.all([
      store.listEpisodes(filter, { limit: PAGE }),
      store.countEpisodes(filter),
      store.estimateStorage(),
      store.listRuns(),
    ]);
    if (id !== this.request) return;
    this.runs = runs;
    const q = this.filter.search.trim().toLowerCase();
    this.episodes = q
      ? page.items.filter((e) => `${e.family} ${e.seed} ${e.model.policy} ${e.model.adapter ?? ''} ${e.imported?.source ?? ''}`.toLowerCase().includes(q))
      : page.items;
    this.total = total;
    this.storage = storage;
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
    if (!store) return;
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
