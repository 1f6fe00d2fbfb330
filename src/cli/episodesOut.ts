// `--out FILE` of the rollout commands (eval, passkt): the played episodes as Turnwise JSONL — header,
// one run record per (family, agent) played, then its episodes (store/played.ts playedRecord) — so the
// file goes on to `credit --in`, `export --in` and the lab's import like the lab's own export. Ids are
// derived from the command's arguments, so re-running the same command writes the same ids (a
// re-import then skips what it already holds instead of duplicating it).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FAMILIES } from '../rl/envs/registry.ts';
import type { Episode, JsonObject } from '../rl/envs/types.ts';
import { cliRunRecord, playedRecord, type ModelRef, type PortableRecord } from '../rl/store/index.ts';
import { encodeTurnwise } from '../rl/store/formats/turnwise.ts';

/** One played batch: a run record and its episodes. */
export interface PlayedRun {
  /** Run id; episode i gets "<id>/<i>". */
  id: string;
  /** The command that played it ("eval", "passkt"), stored as the run's algorithm. */
  command: string;
  /** The agent's name as the summary shows it (e.g. "noisy(0.3)", "policy(T=1)"). */
  agent: string;
  model: ModelRef;
  /** The command's settings, kept in the run record. */
  settings: JsonObject;
  seed: number;
  episodes: readonly (Episode & { truncated?: boolean })[];
}

/** A run id from its parts, e.g. "eval-guess-noisy-test-s1". */
export const runId = (...parts: (string | number)[]): string => parts.join('-').replace(/[^A-Za-z0-9._-]+/g, '_');

/** The records of the runs, in order: each run, then its episodes. */
export function playedRecords(runs: readonly PlayedRun[], at: number): PortableRecord[] {
  const out: PortableRecord[] = [];
  for (const r of runs) {
    out.push(cliRunRecord({ id: r.id, algorithm: r.command, policy: r.model.policy, settings: r.settings, seed: r.seed, notes: r.agent, at }));
    r.episodes.forEach((e, i) => {
      const collaborative = FAMILIES[e.task.spec.family].collaborative;
      out.push(playedRecord(e, { id: `${r.id}/${i}`, runId: r.id, model: r.model, collaborative, at, truncated: e.truncated }));
    });
  }
  return out;
}

/** Writes the runs as Turnwise JSONL to `path`. */
export async function writePlayed(path: string, runs: readonly PlayedRun[], at = Date.now()): Promise<void> {
  const lines: string[] = [];
  for await (const l of encodeTurnwise(playedRecords(runs, at))) lines.push(l);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, lines.join(''));
}
