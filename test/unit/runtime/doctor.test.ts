// `turnwise doctor` (src/cli/commands/doctor.ts): exit 0 with the shipped models intact, exit 1 and
// the file named when one fails its sha256 (issue 22 point 6: it used to exit 0).
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { doctor } from '../../../src/cli/commands/doctor.ts';
import { modelsDir } from '../../../src/cli/paths.ts';
import { capture } from '../capture.ts';

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('turnwise doctor', () => {
  it('passes on the shipped models and fails, naming the file, when one is corrupt', async () => {
    const ok = await capture(() => doctor.run(['--json']));
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out).models.found).toBe(true);

    const dir = mkdtempSync(join(tmpdir(), 'doctor-'));
    dirs.push(dir);
    cpSync(modelsDir(), dir, { recursive: true });
    writeFileSync(join(dir, 'policy', 'tokenizer.json'), '{"corrupt": true}');
    vi.stubEnv('TURNWISE_MODELS', dir);
    const bad = await capture(() => doctor.run(['--json']));
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.out).models;
    expect(report.found).toBe(false);
    expect(report.error).toMatch(/policy\/tokenizer\.json/);
  });
});
