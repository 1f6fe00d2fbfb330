// A lesson may start from the forge's student (envs/family.ts LessonStart, issue #45): the commands
// load the manifest's `student` in the policy's place (openModels' policyFrom), a folder without one
// is refused in words before any work, and a training run from the student records it as its
// adapters' base, which is how Play and Evaluate know to apply them to the student and not the policy.
import 'fake-indexeddb/auto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forge } from '../../../src/cli/commands/forge.ts';
import { TrainerService } from '../../../src/rl/algos/service.ts';
import { defaultLoopConfig } from '../../../src/rl/algos/config.ts';
import { nodeReader } from '../../../src/rl/model/folder/nodeIo.ts';
import { openModels, requireStudent } from '../../../src/rl/rollout/node.ts';
import { TrajectoryStore } from '../../../src/rl/store/index.ts';
import { adapterBase } from '../../../src/ui/state/adapterList.ts';
import { capture } from '../capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'turnwise-student-'));
const models = join(dir, 'models');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const args = ['--smoke', '--out', models, '--steps', '4', '--student', '1', '--eval-episodes', '0', '--critic-steps', '1', '--value-steps', '1', '--json'];
  expect((await capture(() => forge.run(args))).code).toBe(0);
}, 120_000);

const weights = (folder: string) => readFileSync(join(models, folder, 'model.safetensors'));

describe('a lesson that starts from the student', () => {
  it("opens the manifest's student as the policy", async () => {
    const engine = await openModels({ root: models, backend: 'wasm', models: ['policy'], policyFrom: 'student' });
    try {
      const loaded = Buffer.from(engine.loadedModel('policy').files['model.safetensors']!);
      expect(loaded.equals(weights('student'))).toBe(true);
      expect(loaded.equals(weights('policy'))).toBe(false);
    } finally {
      await engine.dispose();
    }
  });

  it('refuses, in words, a models folder without a student', async () => {
    const bare = join(dir, 'bare');
    rmSync(bare, { recursive: true, force: true });
    const manifest = JSON.parse(readFileSync(join(models, 'manifest.json'), 'utf8')) as { models: Record<string, unknown> };
    delete manifest.models.student;
    mkdirSync(bare, { recursive: true });
    writeFileSync(join(bare, 'manifest.json'), JSON.stringify(manifest));
    await expect(requireStudent(bare)).rejects.toThrow(/starts from the forge's student, and .*manifest\.json lists none: pass --models with one/);
    await expect(openModels({ root: bare, backend: 'wasm', models: ['policy'], policyFrom: 'student' })).rejects.toThrow(/lists none/);
    await expect(requireStudent(models)).resolves.toBeUndefined();
  });

  it("trains the student and records it as the adapters' base", async () => {
    const config = defaultLoopConfig('grpo', 'bandit', {
      seed: 3,
      tasksPerIteration: 2,
      k: 2,
      turnLimit: 2,
      maxNewTokens: 4,
      lora: { rank: 4, alpha: 8, targets: ['q_proj', 'v_proj'] },
      start: 'student',
    });
    if (config.settings.algo === 'grpo') config.settings.starpo.batch = 4;
    const storeName = `student-start-${process.pid}-${Date.now()}`;
    const service = new TrainerService();
    try {
      await service.init({ models: { read: nodeReader(models) }, config, backend: 'wasm', storeName, storeRollouts: false });
      await service.train(1);
    } finally {
      await service.dispose();
    }
    const store = await TrajectoryStore.open({ name: storeName });
    try {
      const rows = (await store.listAdapters()).filter((r) => r.target === 'policy');
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r.baseModel).toBe('student');
        expect(adapterBase(r)).toBe('student');
      }
    } finally {
      store.close();
    }
  }, 120_000);
});
