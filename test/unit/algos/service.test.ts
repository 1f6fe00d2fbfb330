// The trainer service (what the trainer worker exposes), in-thread: Pause → Resume pressed while an
// iteration is still running queues the second train() call behind the first instead of refusing it
// ("training is already running", issue 22 point 4); two inits without a run id are two runs.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TrainerService } from '../../../src/rl/algos/service.ts';
import { defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { modelsDir } from '../../../src/cli/paths.ts';

/** The shipped models folder as the in-memory files TrainerInit takes. */
function files(root: string, dir = root, out: Record<string, Uint8Array> = {}): Record<string, Uint8Array> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(root, path, out);
    else out[relative(root, path)] = new Uint8Array(readFileSync(path));
  }
  return out;
}

const config = () => {
  const c = defaultLoopConfig('grpo', 'bandit', {
    seed: 5,
    tasksPerIteration: 2,
    k: 2,
    turnLimit: 2,
    maxNewTokens: 6,
    lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] },
    lr: 5e-3,
  });
  if (c.settings.algo === 'grpo') c.settings.starpo.batch = 4;
  return c;
};

const service = new TrainerService();
afterAll(() => service.dispose());

describe('TrainerService', () => {
  it('resumes right after a pause mid-iteration: the second call waits for the first, none is refused', async () => {
    const models = { files: files(modelsDir()) };
    const status = await service.init({ models, config: config(), backend: 'wasm', storeName: null });
    expect(status.iteration).toBe(0);
    const seen: number[] = [];
    let second: Promise<{ iteration: number }[]> | null = null;
    const first = service.train(3, async (r) => {
      seen.push(r.iteration);
      if (r.iteration !== 1) return;
      // Pause, then Resume at once, while the first call is still running (it returns after this iteration)
      await service.stop();
      second = service.train(2, (q) => void seen.push(q.iteration));
    });
    expect((await first).map((r) => r.iteration)).toEqual([1]);
    expect(second).not.toBeNull();
    expect((await second!).map((r) => r.iteration)).toEqual([2, 3]);
    expect(seen).toEqual([1, 2, 3]);
    expect((await service.status()).running).toBe(false);
    const again = await service.init({ models, config: config(), backend: 'wasm', storeName: null });
    expect(again.runId).not.toBe(status.runId);
  }, 120_000);
});
