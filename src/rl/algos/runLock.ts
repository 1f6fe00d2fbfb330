// One writer per training run across tabs (issue 22 point 4). A run's checkpoint, metrics and
// rollouts live in the shared IndexedDB, so two trainers continuing the same run would overwrite each
// other's checkpoints. The lock is a Web Lock (navigator.locks) named after the run, held by the
// trainer worker for as long as it trains that run. A Web Lock rather than a lease record in
// IndexedDB: the browser releases it when the holding worker or tab ends, crash included, so no
// expiry or heartbeat is needed and a killed tab never leaves its run locked. Where there is no
// lock manager (Node: the CLI and tests, one process, one writer) the lock is a no-op.
import { AlgoError } from './types.ts';

/** A held run lock; release() gives it back (idempotent). */
export interface RunLock {
  release(): void;
}

interface LockManagerLike {
  request(name: string, options: { ifAvailable: boolean }, callback: (lock: unknown) => Promise<unknown>): Promise<unknown>;
}

/** The lock's name for a run (one namespace for the lab's runs). */
export function runLockName(runId: string): string {
  return `turnwise-run:${runId}`;
}

/**
 * Takes the run's lock without waiting; throws AlgoError('run-busy') when another tab's trainer holds
 * it, so a second writer is refused before it reads or writes anything of the run.
 */
export async function acquireRunLock(
  runId: string,
  locks: LockManagerLike | undefined = (globalThis.navigator as { locks?: LockManagerLike } | undefined)?.locks,
): Promise<RunLock> {
  if (!locks) return { release() {} };
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const granted = await new Promise<boolean>((resolve, reject) => {
    locks
      .request(runLockName(runId), { ifAvailable: true }, async (lock) => {
        resolve(lock !== null);
        if (lock !== null) await released;
      })
      .catch(reject);
  });
  if (!granted) throw new AlgoError('run-busy', `run ${runId} is being trained in another tab or window; stop it there, or start a new run`);
  return { release };
}
