// Version 3 of our JSONL writes each credit annotation without nulls (issue 48.7: pyarrow's JSON reader
// loses a list's leading nulls): the messages that have a value and their values; and the hidden
// information as JSON text (its types differ between tasks). The store's records keep one value (or
// null) per message and the hidden object; versions 1 and 2, whose lines hold those, still import.
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { freshName, openStore, writeEpisode } from './helpers.ts';
import { collectText, textSource } from '../../../src/rl/store/formats/lines.ts';
import { creditFromLine, creditLine, encodeTurnwise } from '../../../src/rl/store/formats/turnwise.ts';
import { importFile, validateImport } from '../../../src/rl/store/importer.ts';

const CREDIT = { estimator: 'mc', version: 'v', params: { gamma: 1 }, values: [null, 0.5, null, -0.25], at: 7 };

describe('version 3 lines', () => {
  it('leave the nulls out and put them back', () => {
    const line = creditLine(CREDIT);
    expect(line).toEqual({ estimator: 'mc', version: 'v', params: { gamma: 1 }, turns: [1, 3], values: [0.5, -0.25], at: 7 });
    expect(JSON.stringify(line)).not.toContain('null');
    const back = creditFromLine(line, 4);
    expect(back).toEqual({ ok: true, credit: CREDIT });
    // the record's field order, so export → import → export gives the same bytes
    expect(back.ok && Object.keys(back.credit as object)).toEqual(Object.keys(CREDIT));
  });

  it('refuse indices that do not fit the episode', () => {
    expect(creditFromLine({ ...creditLine(CREDIT), turns: [1, 9] }, 4)).toMatchObject({ ok: false, path: 'turns[1]' });
    expect(creditFromLine({ ...creditLine(CREDIT), turns: [3, 1] }, 4)).toMatchObject({ ok: false, path: 'turns[1]' });
    expect(creditFromLine({ ...creditLine(CREDIT), values: [0.5] }, 4)).toMatchObject({ ok: false, path: 'values' });
    expect(creditFromLine({ estimator: 'mc', values: [null, 1] }, 2)).toMatchObject({ ok: false, path: 'turns' });
  });

  it('a version 2 file with dense credit imports, and exports again as version 3 with the same credit', async () => {
    const src = await openStore(freshName('v3-src'));
    const id = await writeEpisode(src, { seed: 1, pairs: 1 });
    const n = (await src.getEpisode(id))!.turns.length;
    await src.putCredit(id, { estimator: 'mc', version: 'v', values: Array.from({ length: n }, (_, i) => (i % 2 ? i / 4 : NaN)) }); // NaN: no value
    const v3 = await collectText(encodeTurnwise(src.exportRecords()));
    src.close();
    expect(v3.split('\n')[0]).toBe('{"format":"turnwise.trajectories","version":3}');
    const ep = JSON.parse(v3.split('\n')[1]) as { task: { hidden: string }; credit: { turns: number[]; values: number[] }[] };
    expect(typeof ep.task.hidden).toBe('string'); // JSON text in version 3
    expect(ep.credit[0].turns).toEqual(Array.from({ length: n }, (_, i) => i).filter((i) => i % 2));
    // the same episode as a version 2 line: hidden information as JSON, credit dense
    const dense = {
      ...ep,
      task: { ...ep.task, hidden: JSON.parse(ep.task.hidden) as unknown },
      credit: ep.credit.map(({ turns, values, ...c }) => ({
        ...c,
        values: Array.from({ length: n }, (_, i) => (turns.includes(i) ? values[turns.indexOf(i)] : null)),
      })),
    };
    const v2 = ['{"format":"turnwise.trajectories","version":2}', JSON.stringify(dense)].join('\n');
    expect((await validateImport(textSource(v2), { format: 'turnwise', source: 'v2' })).report.errors).toEqual([]);
    const dst = await openStore(freshName('v3-dst'));
    await importFile(dst, textSource(v2), { format: 'turnwise', source: 'v2' });
    expect((await dst.getEpisode(id))!.credit[0].values).toEqual(Array.from({ length: n }, (_, i) => (i % 2 ? i / 4 : null)));
    expect(await collectText(encodeTurnwise(dst.exportRecords()))).toBe(v3);
    dst.close();
    // a version 3 line with an index past the episode is reported by line and field
    const bad = v3.replace(/"turns":\[1,/, `"turns":[${n + 5},`);
    expect((await validateImport(textSource(bad), { format: 'turnwise', source: 'bad' })).report.errors[0]).toMatchObject({
      line: 2,
      path: 'credit[0].turns[0]',
    });
  });
});

describe('version 3 hidden information', () => {
  it('must be JSON text, and bad JSON text is reported by line and field', async () => {
    const src = await openStore(freshName('v3-hidden'));
    await writeEpisode(src, { seed: 2, pairs: 1 });
    const v3 = await collectText(encodeTurnwise(src.exportRecords()));
    src.close();
    expect((await validateImport(textSource(v3), { format: 'turnwise', source: 'ok' })).report.errors).toEqual([]);
    const asObject = v3.replace(/"hidden":"((?:[^"\\]|\\.)*)"/, (_, text: string) => `"hidden":${JSON.parse(`"${text}"`) as string}`);
    expect(asObject).not.toBe(v3);
    expect((await validateImport(textSource(asObject), { format: 'turnwise', source: 'obj' })).report.errors[0]).toMatchObject({
      line: 2,
      path: 'task.hidden',
    });
    const broken = v3.replace(/"hidden":"\{/, '"hidden":"{{');
    expect((await validateImport(textSource(broken), { format: 'turnwise', source: 'bad' })).report.errors[0]).toMatchObject({
      line: 2,
      path: 'task.hidden',
      message: expect.stringMatching(/not valid JSON/),
    });
  });
});
