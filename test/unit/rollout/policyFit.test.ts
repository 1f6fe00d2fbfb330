// Whether the policy can take a task (src/rl/model/fit.ts, src/rl/rollout/policyFit.ts; issue 18):
// hand examples of the check, and on the shipped policy the prompt counts it uses agree with what the
// engine itself counts (and refuses) — read from the model's metadata, whatever its context.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelsDir } from '../../../src/cli/paths.ts';
import { because } from '../../support/skip.ts';
import type { TaskSpec } from '../../../src/rl/envs/types.ts';
import { createEnv, FAMILY_NAMES } from '../../../src/rl/envs/registry.ts';
import { policyFit, policyLimits } from '../../../src/rl/model/fit.ts';
import { toChat } from '../../../src/rl/model/tokenizer/dialogue.ts';
import { openModels } from '../../../src/rl/rollout/node.ts';
import { assertPolicyTakes, policyFitOf } from '../../../src/rl/rollout/policyFit.ts';
import type { PolicyEngine } from '../../../src/rl/runtime/policyEngine.ts';

describe('policyFit', () => {
  const limits = { contextTokens: 256, replyTokens: 48, families: ['guess', 'backend', 'bandit'] };

  it('takes a prompt that leaves room for the reply, and says why it cannot take one that does not', () => {
    expect(policyFit(limits, { family: 'guess', promptTokens: 208 })).toEqual({ kind: 'fits' });
    expect(policyFit(limits, { family: 'sokoban', promptTokens: 371 })).toEqual({
      kind: 'too-long',
      reason: "the policy's context is 256 tokens; this sokoban prompt needs 371 + 48 reply tokens",
      promptTokens: 371,
      replyTokens: 48,
      contextTokens: 256,
    });
    // one token past the budget is too long; a prompt that fits but was never forged on is reported as such
    expect(policyFit(limits, { family: 'guess', promptTokens: 209 }).kind).toBe('too-long');
    expect(policyFit(limits, { family: 'sokoban', promptTokens: 100 })).toEqual({
      kind: 'not-forged',
      reason: 'the policy was trained on guess, backend, bandit, not sokoban',
    });
    expect(policyFit({ ...limits, families: null }, { family: 'sokoban', promptTokens: 100 })).toEqual({ kind: 'fits' });
  });

  it('reads the limits from the metadata: the forged window (never past the positions) and the reply reserve', () => {
    expect(policyLimits({ contextTokens: 512, maxReplyTokens: 48, families: ['guess'] }, 1024)).toEqual({
      contextTokens: 512,
      replyTokens: 48,
      families: ['guess'],
    });
    expect(policyLimits({ contextTokens: 512 }, 256)).toEqual({ contextTokens: 256, replyTokens: 64, families: null });
    expect(policyLimits({ maxReplyTokens: 48 }, 256, 8).replyTokens).toBe(8); // a run's maxNewTokens
    // a re-forged policy with a longer context takes the sokoban prompt the 256-token one could not
    expect(policyFit(policyLimits({ contextTokens: 512, maxReplyTokens: 48 }, 512), { family: 'sokoban', promptTokens: 371 }).kind).toBe('fits');
  });
});

const shipped = existsSync(join(modelsDir(), 'manifest.json'));

describe.runIf(shipped)(
  'policyFitOf on the shipped policy',
  because(`${modelsDir()}/manifest.json is absent: forge the shipped models with \`npm run forge\``),
  () => {
    let engine: PolicyEngine;
    beforeAll(async () => {
      engine = await openModels({ root: modelsDir(), backend: 'node', models: ['policy'] });
    });
    afterAll(async () => engine?.dispose());

    it("counts each family's prompt as the engine does, and refuses exactly what does not fit", { timeout: 60_000 }, async () => {
      const info = engine.loadedModel('policy');
      const limits = policyLimits(info.turnwise, info.config.maxSeq);
      for (const family of FAMILY_NAMES) {
        const spec: TaskSpec = { family, split: 'test', seed: 1 };
        const fit = await policyFitOf(engine, [spec]);
        const prompt = createEnv(family).reset(spec).prompt;
        const messages = toChat([{ role: 'user', content: prompt }]);
        // the engine's own count of the prompt the policy agent sends (windowed as in play)
        let engineCount: number;
        try {
          engineCount = (await engine.generate({ prompts: [{ messages, window: {} }], sampling: { temperature: 0, maxNewTokens: 1 } })).generations[0]
            .promptTokens;
        } catch (e) {
          expect((e as Error).name).toBe('PromptTooLongError');
          engineCount = (e as { promptTokens: number }).promptTokens;
        }
        const fits = engineCount + limits.replyTokens <= limits.contextTokens;
        expect(fit.kind === 'too-long', family).toBe(!fits);
        if (fit.kind === 'too-long') {
          expect(fit.reason).toBe(
            `the policy's context is ${limits.contextTokens} tokens; this ${family} prompt needs ${engineCount} + ${limits.replyTokens} reply tokens`,
          );
          await expect(assertPolicyTakes(engine, [spec])).rejects.toMatchObject({
            name: 'PolicyFitError',
            code: 'too-long',
            message: `The policy's context is ${limits.contextTokens} tokens; this ${family} prompt needs ${engineCount} + ${limits.replyTokens} reply tokens`,
          });
        } else await expect(assertPolicyTakes(engine, [spec])).resolves.toBeUndefined();
      }
    });
  },
);
