// The layer rule (eslint/layers.js, docs/architecture.md) through ESLint itself with the project's
// config: a planted backwards import in each kind fails lint, the imports the layers allow pass.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { LAYERS, packageViolation, violation } from '../../../eslint/layers.js';

const eslint = new ESLint({ cwd: process.cwd() });

/** The layer rule's messages for `code` as if it were the file `filePath`. */
async function layerErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'turnwise/layers').map((m) => m.message);
}

describe('layer rule', () => {
  it('orders the layers from util up to the UI and the CLI', () => {
    expect(LAYERS[0]).toBe('src/rl/util');
    expect(LAYERS.indexOf('src/rl/model')).toBeLessThan(LAYERS.indexOf('src/rl/runtime'));
    expect(LAYERS.indexOf('src/rl/runtime')).toBeLessThan(LAYERS.indexOf('src/rl/rollout'));
    expect(LAYERS.indexOf('src/rl/rollout')).toBeLessThan(LAYERS.indexOf('src/rl/algos'));
    expect(LAYERS.slice(-2)).toEqual(['src/ui', 'src/cli']);
  });

  it('decides pairs by hand', () => {
    expect(violation('src/rl/runtime/engine/lm.ts', 'src/rl/model/llama/graphs.ts')).toBeNull();
    expect(violation('src/rl/model/llama/feeds.ts', 'src/rl/runtime/ort.ts')).toMatch(/src\/rl\/model may not import src\/rl\/runtime/);
    expect(violation('src/rl/algos/sweet.ts', 'src/rl/forge/config.ts')).toMatch(/may not import src\/rl\/forge/);
    expect(violation('src/ui/state/play.svelte.ts', 'src/rl/forge/config.ts')).toMatch(/imported only by src\/cli/);
    expect(violation('src/cli/commands/forge.ts', 'src/rl/forge/forge.ts')).toBeNull();
    expect(violation('src/ui/state/lab.svelte.ts', 'src/rl/runtime/ort.ts')).toMatch(/only through src\/rl\/runtime\/api\.ts/);
    expect(violation('src/ui/state/lab.svelte.ts', 'src/rl/runtime/api.ts')).toBeNull();
    expect(violation('src/ui/state/lab.svelte.ts', 'src/cli/main.ts')).toMatch(/src\/cli sits above src\/ui/);
    expect(violation('src/cli/main.ts', 'src/ui/state/lab.svelte.ts')).toMatch(/src\/ui is imported by no other layer/);
    expect(violation('src/rl/algos/checkpoint.ts', 'src/rl/store/db.ts')).toMatch(/internal to src\/rl\/store/);
    expect(violation('src/rl/store/store.ts', 'src/rl/store/db.ts')).toBeNull();
    expect(violation('test/unit/x.test.ts', 'src/rl/runtime/ort.ts')).toBeNull();
    expect(packageViolation('src/rl/model/probe.ts', 'onnxruntime-web')).toMatch(/only inside src\/rl\/runtime/);
    expect(packageViolation('src/rl/runtime/ort.ts', 'onnxruntime-web')).toBeNull();
  });

  it('fails lint on a planted backwards import', async () => {
    expect(
      await layerErrors("import type { OrtRuntime } from '../../runtime/ort.ts';\nexport type R = OrtRuntime;\n", 'src/rl/model/llama/planted.ts'),
    ).toHaveLength(1);
    expect(await layerErrors("export { rollout } from '../rollout/rollout.ts';\n", 'src/rl/runtime/planted.ts')).toHaveLength(1);
    expect(await layerErrors("const m = await import('../../rl/forge/config.ts');\nexport default m;\n", 'src/ui/state/planted.svelte.ts')).toHaveLength(1);
    expect(await layerErrors("import * as ort from 'onnxruntime-web';\nexport default ort;\n", 'src/rl/rollout/planted.ts')).toHaveLength(1);
  });

  it('passes the imports the layers allow', async () => {
    expect(await layerErrors("import { rollout } from '../rollout/rollout.ts';\nexport default rollout;\n", 'src/rl/algos/planted.ts')).toEqual([]);
    expect(
      await layerErrors("import type { ModelInfo } from '../../rl/runtime/api.ts';\nexport type M = ModelInfo;\n", 'src/ui/state/planted.svelte.ts'),
    ).toEqual([]);
  });
});
