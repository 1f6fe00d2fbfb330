// Reads the lab's IndexedDB from the page with the raw IndexedDB API (no app code involved), so a
// browser test checks what was really committed, not what the app believes it wrote.
import type { Page } from 'playwright-core';

export interface StoredEpisode {
  id: string;
  createdAt: number;
  status: string;
  outcome: unknown;
  /** Who played it: the policy (or scripted agent) name, the adapter, the critic. */
  model: { policy: string; adapter: string | null; critic: string | null };
  roles: string[];
  agentTexts: string[];
}

/** Every episode in the lab's database with its turn records' roles and agent texts, in order. */
export function readDb(page: Page): Promise<StoredEpisode[]> {
  return page.evaluate(
    () =>
      new Promise<StoredEpisode[]>((resolve, reject) => {
        const open = indexedDB.open('turnwise');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const tx = open.result.transaction(['episodes', 'turns'], 'readonly');
          const eps = tx.objectStore('episodes').getAll();
          const turns = tx.objectStore('turns').getAll();
          tx.oncomplete = () => {
            const rows = turns.result as { episodeId: string; index: number; role: string; text: string }[];
            resolve(
              (eps.result as Omit<StoredEpisode, 'roles' | 'agentTexts'>[]).map((e) => {
                const mine = rows.filter((r) => r.episodeId === e.id).sort((a, b) => a.index - b.index);
                return {
                  id: e.id,
                  createdAt: e.createdAt,
                  status: e.status,
                  outcome: e.outcome,
                  model: e.model,
                  roles: mine.map((r) => r.role),
                  agentTexts: mine.filter((r) => r.role === 'agent').map((r) => r.text),
                };
              }),
            );
            open.result.close();
          };
        };
      }),
  );
}

/** Every credit row in the lab's database: which estimator, which version, for which episode. */
export function readCredit(page: Page): Promise<{ episodeId: string; estimator: string; version: string }[]> {
  return page.evaluate(
    () =>
      new Promise<{ episodeId: string; estimator: string; version: string }[]>((resolve, reject) => {
        const open = indexedDB.open('turnwise');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const all = open.result.transaction('credit').objectStore('credit').getAll();
          all.onsuccess = () => {
            resolve(
              (all.result as { episodeId: string; estimator: string; version: string }[]).map(({ episodeId, estimator, version }) => ({
                episodeId,
                estimator,
                version,
              })),
            );
            open.result.close();
          };
        };
      }),
  );
}

/** The settings a run record holds (the run's whole LoopConfig for a training run), or null when the run is not stored. */
export function readRunSettings(page: Page, runId: string): Promise<Record<string, unknown> | null> {
  return page.evaluate(
    (id) =>
      new Promise<Record<string, unknown> | null>((resolve, reject) => {
        const open = indexedDB.open('turnwise');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('runs', 'readonly').objectStore('runs').get(id);
          get.onsuccess = () => {
            open.result.close();
            resolve((get.result as { settings?: Record<string, unknown> } | undefined)?.settings ?? null);
          };
          get.onerror = () => reject(get.error);
        };
      }),
    runId,
  );
}
