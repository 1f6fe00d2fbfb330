// A forge's progress folder, OUT/forge-progress/ (issue #47: the forge is resumable by stage): after
// every policy stage a forge may resume after (config.ts resumeBlock) it holds that stage's policy as a
// model folder with its own manifest.json (so `eval --models OUT/forge-progress` plays it) and
// progress.json (the configuration, the command, the stages done, the seconds so far and the phases'
// reports). `npx turnwise forge --resume OUT` goes on from there with the saved configuration; a forge
// that finishes removes the folder.
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ForgeConfig } from '../rl/forge/config.ts';
import type { ForgeRun } from '../rl/forge/forge.ts';
import type { PhaseReport } from '../rl/forge/train.ts';
import { loadModel, writeManifest, writeModelFolder, type LoadedModel } from '../rl/model/folder/folder.ts';
import { nodeReader, nodeWriter } from '../rl/model/folder/nodeIo.ts';
import { parseManifest, type ManifestModel } from '../rl/model/manifest.ts';
import type { ModelWeights } from '../rl/model/llama/weights.ts';
import { UsageError } from './command.ts';

export const PROGRESS_DIR = 'forge-progress';
const PROGRESS_FILE = 'progress.json';

/** progress.json: where an interrupted forge stood after its last checkpoint. */
export interface ForgeProgress {
  /** The command that started the forge (the manifest records it, not the --resume that finished it). */
  command: string;
  config: ForgeConfig;
  stagesDone: number;
  /** Wall seconds from the forge's start to this checkpoint, over every run of it. */
  seconds: number;
  /** Every policy phase's report so far, over every run of it. */
  phases: PhaseReport[];
}

/** The forge's checkpoint hook: writes stage K's policy to forge-progress/stage-K, then progress.json, then drops older stages. */
export function progressCheckpoint(out: string, base: Omit<ForgeProgress, 'stagesDone'>): NonNullable<ForgeRun['checkpoint']> {
  const dir = join(out, PROGRESS_DIR);
  const write = nodeWriter(dir);
  const t0 = performance.now();
  return async (stagesDone, policy, phases, student) => {
    const folder = `stage-${stagesDone}`;
    // the policy is written whole before the manifest and progress.json name it, so an interrupted write leaves the last checkpoint intact
    const entry = await writeModelFolder(write, folder, policy);
    // the student (the config's `student` stage, once past it) stays beside every later stage's policy
    const models: Record<string, ManifestModel> = { policy: entry };
    if (student) models.student = await writeModelFolder(write, 'student', student);
    await writeManifest(write, models);
    const progress: ForgeProgress = {
      ...base,
      stagesDone,
      seconds: Math.round(base.seconds + (performance.now() - t0) / 1000),
      phases: [...base.phases, ...phases],
    };
    await write(PROGRESS_FILE, new TextEncoder().encode(`${JSON.stringify(progress, null, 2)}\n`));
    for (const name of await readdir(dir)) if (name.startsWith('stage-') && name !== folder) await rm(join(dir, name), { recursive: true, force: true });
  };
}

/** An interrupted forge's progress, the policy of its last checkpoint and its student's weights if it holds one; a named error when OUT holds none. */
export async function readProgress(out: string): Promise<{ progress: ForgeProgress; policy: LoadedModel; student?: ModelWeights }> {
  const dir = join(out, PROGRESS_DIR);
  let text: string;
  try {
    text = await readFile(join(dir, PROGRESS_FILE), 'utf8');
  } catch {
    throw new UsageError(`--resume: ${join(dir, PROGRESS_FILE)} is missing (no interrupted forge wrote to ${out}, or it finished)`);
  }
  const progress = JSON.parse(text) as ForgeProgress;
  const policy = await loadModel(nodeReader(dir), 'policy');
  const student = await loadStudent(dir);
  return { progress, policy, ...(student ? { student } : {}) };
}

/** The weights of the student a model folder's manifest names (a forge's output or its progress folder), if any. */
export async function loadStudent(dir: string): Promise<ModelWeights | undefined> {
  const manifest = parseManifest(await readFile(join(dir, 'manifest.json'), 'utf8'));
  return manifest.models.student ? (await loadModel(nodeReader(dir), 'student')).weights : undefined;
}

/** A finished forge's progress folder goes: what it held is now the shipped policy. */
export async function clearProgress(out: string): Promise<void> {
  await rm(join(out, PROGRESS_DIR), { recursive: true, force: true });
}
