// Change notifications between tabs (BroadcastChannel, one channel per database name) and within
// one tab (listeners hear their own store's changes too, marked local). Where BroadcastChannel is
// absent only local listeners hear. Messages are plain data, typed by `type`.
import type { EpisodeStatus } from './schema.ts';

/** What changed. Lists re-query on any of these; an open episode view watches its own id. */
export type StoreChange =
  | { type: 'run'; id: string }
  | { type: 'episode'; id: string; status: EpisodeStatus }
  | { type: 'turn'; episodeId: string; index: number }
  | { type: 'deleted'; ids: string[] }
  | { type: 'restored'; ids: string[] }
  | { type: 'purged'; count: number }
  | { type: 'imported'; runs: number; episodes: number }
  | { type: 'credit'; episodeId: string; estimator: string; version: string }
  | { type: 'scores'; episodeId: string }
  | { type: 'adapter'; id: string }
  | { type: 'metrics'; runId: string; iteration: number }
  | { type: 'interrupted'; ids: string[] };

/** A change as a listener receives it. `reload-required`: this tab's connection closed for a newer schema. */
export type StoreEvent = (StoreChange & { origin: 'local' | 'remote' }) | { type: 'reload-required'; origin: 'local'; message: string };

export type StoreListener = (event: StoreEvent) => void;

export class ChangeNotifier {
  private readonly listeners = new Set<StoreListener>();
  private readonly channel: BroadcastChannel | null;

  constructor(dbName: string) {
    this.channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel(`turnwise-store:${dbName}`);
    if (this.channel) this.channel.onmessage = (e: MessageEvent<StoreChange>) => this.deliver({ ...e.data, origin: 'remote' });
  }

  /** Tells this tab's listeners and every other tab. */
  publish(change: StoreChange): void {
    this.deliver({ ...change, origin: 'local' });
    try {
      this.channel?.postMessage(change);
    } catch {
      // A closed channel (page unloading) loses the message; other tabs re-query on focus anyway.
    }
  }

  /** Only this tab's listeners (e.g. reload-required). */
  local(event: StoreEvent): void {
    this.deliver(event);
  }

  subscribe(listener: StoreListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.channel?.close();
    this.listeners.clear();
  }

  private deliver(event: StoreEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (e) {
        // One broken listener must not stop the others or the write that triggered it.
        const report = (globalThis as { reportError?: (e: unknown) => void }).reportError;
        if (report) report(e);
        else console.error(e);
      }
    }
  }
}
