// Which store sessions are alive, so that opening the lab marks as interrupted only the in-progress
// episodes whose writer is gone — never those another open tab is still writing. In browsers each
// session holds a Web Lock named after it for its lifetime (released by the browser when the page
// closes or crashes); where Web Locks are absent (Node) the sessions of this JS realm are known
// through a module-level set. Also: storage usage/quota and the persistence request.

const LOCK_PREFIX = 'turnwise-session:';
const realmSessions = new Set<string>();

interface LockManagerLike {
  request(name: string, callback: () => Promise<void>): Promise<void>;
  query(): Promise<{ held?: { name?: string }[] }>;
}

function lockManager(): LockManagerLike | null {
  const nav = (globalThis as { navigator?: { locks?: LockManagerLike } }).navigator;
  return nav?.locks ?? null;
}

/** A live session: holds its lock until `end()`. */
export class SessionHandle {
  private release: (() => void) | null = null;

  private constructor(readonly id: string) {}

  static async start(id: string): Promise<SessionHandle> {
    const handle = new SessionHandle(id);
    realmSessions.add(id);
    const locks = lockManager();
    if (locks) {
      await new Promise<void>((granted) => {
        void locks.request(LOCK_PREFIX + id, () => {
          granted();
          return new Promise<void>((r) => (handle.release = r));
        });
      });
    }
    return handle;
  }

  end(): void {
    realmSessions.delete(this.id);
    this.release?.();
    this.release = null;
  }
}

/** The ids of sessions alive now, in any tab (Web Locks) or in this realm. */
export async function liveSessions(): Promise<Set<string>> {
  const live = new Set(realmSessions);
  const locks = lockManager();
  if (locks) {
    for (const l of (await locks.query()).held ?? []) if (l.name?.startsWith(LOCK_PREFIX)) live.add(l.name.slice(LOCK_PREFIX.length));
  }
  return live;
}

/** Storage the origin uses and may use, in bytes; `persisted`: the browser will not evict it under pressure. */
export interface StorageInfo {
  usage: number;
  quota: number;
  persisted: boolean;
}

interface StorageManagerLike {
  estimate?: () => Promise<{ usage?: number; quota?: number }>;
  persisted?: () => Promise<boolean>;
  persist?: () => Promise<boolean>;
}

function storageManager(): StorageManagerLike | null {
  return (globalThis as { navigator?: { storage?: StorageManagerLike } }).navigator?.storage ?? null;
}

/** Usage and quota (navigator.storage.estimate); null where the platform has no storage manager (Node). */
export async function estimateStorage(): Promise<StorageInfo | null> {
  const sm = storageManager();
  if (!sm?.estimate) return null;
  const { usage = 0, quota = 0 } = await sm.estimate();
  const persisted = sm.persisted ? await sm.persisted() : false;
  return { usage, quota, persisted };
}

/** Asks the browser not to evict the lab's data; resolves whether it agreed (false where unsupported). */
export async function requestPersistence(): Promise<boolean> {
  const sm = storageManager();
  if (!sm?.persist) return false;
  try {
    return await sm.persist();
  } catch {
    return false;
  }
}
