// What a user sees before any command runs: `npx turnwise` prints no npm warning (the repository's npm
// configuration holds only keys npm knows; onnxruntime-node's install flag travels as an environment
// variable in .ci/run and the README), and `export --help` lists every export format.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import { EXPORT_FORMATS } from '../../../src/rl/store/formats/index.ts';
import { capture } from '../capture.ts';

describe('npm configuration', () => {
  it('gives npm no unknown project config to warn about', () => {
    const r = spawnSync('npm', ['config', 'list'], { encoding: 'utf8', env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/Unknown project config/);
    if (existsSync('.npmrc')) expect(readFileSync('.npmrc', 'utf8')).not.toMatch(/onnxruntime/);
  });

  it('still skips the CUDA provider download in CI, before npm ci', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    const skip = ci.indexOf('export ONNXRUNTIME_NODE_INSTALL=skip');
    expect(skip).toBeGreaterThan(-1);
    expect(skip).toBeLessThan(ci.indexOf('\nnpm ci '));
  });
});

describe('turnwise export --help', () => {
  it('names every format in its usage line', async () => {
    const { code, out } = await capture(() => main(['export', '--help']));
    expect(code).toBe(0);
    const usage = out.split('\n')[0];
    for (const f of Object.keys(EXPORT_FORMATS)) expect(usage).toContain(f);
    expect(usage).toContain('jsonl|chat|sweet|parquet|dpo|turn-dpo');
  });
});
