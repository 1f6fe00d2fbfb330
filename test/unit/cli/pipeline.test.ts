// The CLI pipeline a user runs from played episodes to a training stack, through the CLI's own entry
// (main): `eval --out a.jsonl` → `credit --in a.jsonl --out b.jsonl` → `export --in b.jsonl --format F`
// for every export format F, and back through `import --check`. A few scripted episodes keep it short;
// passkt --out gives K episodes per task, which the preference formats need to form pairs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parquetReadObjects } from 'hyparquet';
import { main } from '../../../src/cli/main.ts';
import { EXPORT_FORMATS, type ExportFormat } from '../../../src/rl/store/formats/index.ts';
import { capture } from '../capture.ts';

const dir = mkdtempSync(join(tmpdir(), 'turnwise-pipeline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ok(args: string[]): Promise<Record<string, unknown>> {
  const { code, out } = await capture(() => main([...args, '--json']));
  expect(code, `turnwise ${args.join(' ')}`).toBe(0);
  return JSON.parse(out) as Record<string, unknown>;
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('eval --out → credit --out → export, every format', () => {
  const a = join(dir, 'a.jsonl');
  const b = join(dir, 'b.jsonl');

  it('eval --out writes Turnwise JSONL that import --check accepts', async () => {
    await ok(['eval', '--family', 'guess', '--agent', 'noisy', '--episodes', '3', '--out', a]);
    const recs = lines(a);
    expect(recs[0]).toEqual({ format: 'turnwise.trajectories', version: 3 });
    expect(recs.slice(1).map((r) => r.type)).toEqual(['run', 'episode', 'episode', 'episode']);
    expect(recs[1]).toMatchObject({ id: 'eval-guess-noisy-test-s1', algorithm: 'eval', notes: 'noisy(0.3)' });
    expect(await ok(['import', '--check', a])).toMatchObject({ ok: true, format: 'turnwise', counts: { runs: 1, episodes: 3 } });
  });

  it('credit annotates it', async () => {
    const r = await ok(['credit', '--in', a, '--estimators', 'mc,grpo', '--out', b]);
    expect(r.format).toBe('turnwise');
    const eps = lines(b).filter((x) => x.type === 'episode') as { credit: { estimator: string }[] }[];
    expect(eps.map((e) => e.credit.map((c) => c.estimator))).toEqual(Array(3).fill(['mc', 'grpo']));
  });

  it('credit recomputes the critic estimators from stored critic scores, with no critic to load', async () => {
    // each episode of a with critic scores, as Play stores them: one token per agent turn
    const c = join(dir, 'c.jsonl');
    const recs = lines(a).map((r) => {
      if (r.type !== 'episode') return r;
      const T = (r.turns as { role: string }[]).filter((t) => t.role === 'agent').length;
      const seq = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));
      return {
        ...r,
        criticScores: {
          version: 'critic',
          values: seq(T + 1, (i) => (i === T ? 0 : 0.5 - i / 8)),
          tokenOffsets: seq(T + 1, (i) => i),
          tokens: seq(T, () => 9),
          tokenText: Array.from({ length: T }, () => ' x'),
          tokenValues: seq(T, (i) => 0.25 * i),
          criticLogprobs: seq(T, () => -1),
          refLogprobs: seq(T, () => -1.5),
          at: 1,
        },
      };
    });
    writeFileSync(c, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const missing = join(dir, 'no-models');
    const r = await ok([
      'credit',
      '--in',
      c,
      '--estimators',
      'gae,bilevel-gae,sweet',
      '--params',
      '{"gae":{"gamma":0.5,"lambda":1},"sweet":{"beta":0.1}}',
      '--models',
      missing,
    ]);
    expect(r.criticSource).toBe('stored');
    const eps = r.episodes as { rewards: number[]; credit: Record<string, number[]> }[];
    for (const e of eps) {
      // SWEET-RL: β · (−1 − (−1.5)) on every turn
      e.credit.sweet.forEach((x) => expect(x).toBeCloseTo(0.05, 6));
      // GAE with λ = 1, γ = 0.5: A_t = Σ_k γ^k r_{t+k} − V(s_t)
      const T = e.rewards.length;
      e.credit.gae.forEach((x, t) => expect(x).toBeCloseTo(e.rewards.slice(t).reduce((s, rr, k) => s + 0.5 ** k * rr, 0) - (0.5 - t / 8), 5));
      expect(e.credit['bilevel-gae']).toHaveLength(T);
    }
    // --rescore asks for the critic, which is not there
    const { code } = await capture(() => main(['credit', '--in', c, '--estimators', 'gae', '--rescore', '--models', missing, '--json']));
    expect(code).not.toBe(0);
  });

  it.each(Object.keys(EXPORT_FORMATS) as ExportFormat[])('export --format %s', async (format) => {
    const out = join(dir, `b${EXPORT_FORMATS[format].extension}`);
    const r = await ok(['export', '--in', b, '--format', format, '--out', out]);
    expect(r).toMatchObject({ ok: true, episodes: 3 });
    if (format === 'parquet') {
      const bytes = readFileSync(out);
      const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer });
      expect(rows.length).toBe(3);
    } else if (format === 'dpo' || format === 'turn-dpo') {
      // eval plays each task once: no two episodes of one task, so no pair (passkt below has them)
      expect(r.records).toBe(0);
    } else {
      expect(r.records).toBe(format === 'jsonl' ? 4 : 3);
      if (format === 'chat')
        expect((lines(out)[0].credit as { name: string }[]).map((c) => c.name)).toEqual(['mc@turnwise-credit-1', 'grpo@turnwise-credit-1']);
      if (format === 'jsonl' || format === 'sweet') expect(await ok(['import', '--check', out])).toMatchObject({ ok: true, counts: { episodes: 3 } });
    }
  });
});

describe('passkt --out → credit → preference pairs', () => {
  it('writes K episodes per task, which pair up', async () => {
    const a = join(dir, 'k.jsonl');
    const b = join(dir, 'k-credit.jsonl');
    await ok(['passkt', '--family', 'guess', '--agent', 'noisy', '--n', '4', '--tasks', '2', '--out', a]);
    expect(lines(a).filter((r) => r.type === 'episode').length).toBe(8);
    await ok(['credit', '--in', a, '--out', b]);
    for (const format of ['dpo', 'turn-dpo'] as const) {
      const out = join(dir, `k.${format}.jsonl`);
      const r = await ok(['export', '--in', b, '--format', format, '--out', out]);
      expect(r.records as number, format).toBeGreaterThan(0);
      for (const p of lines(out) as { prompt: { role: string }[]; chosen: unknown[]; rejected: unknown[] }[]) {
        expect(p.chosen.length).toBeGreaterThan(0);
        expect(p.rejected.length).toBeGreaterThan(0);
      }
    }
  });
});
