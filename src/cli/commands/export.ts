// `turnwise export --in FILE --format jsonl|chat|sweet|parquet --out FILE`: converts a trajectory
// file (Turnwise JSONL, or SWEET-RL JSONL with --from sweet) into any export format, with the same
// encoders the lab uses (src/rl/store/formats). The input is validated completely first; the output
// is written to FILE.partial and renamed at the end, so a failed export leaves no half-written file.
import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { UsageError, parseOptions, report, type Command } from '../command.ts';
import { prepareOutFile } from '../output.ts';
import { validateImport, type ImportFormat } from '../../rl/store/importer.ts';
import { readLines } from '../../rl/store/formats/lines.ts';
import { decodeTurnwise } from '../../rl/store/formats/turnwise.ts';
import { decodeSweet } from '../../rl/store/formats/sweet.ts';
import { EXPORT_FORMATS, encodeExport, isExportFormat } from '../../rl/store/formats/index.ts';
import type { PortableRecord } from '../../rl/store/schema.ts';

/** The records of a file already known to be valid, streamed. */
async function* records(file: string, from: ImportFormat, now: number): AsyncGenerator<PortableRecord> {
  const lines = readLines(createReadStream(file));
  const events = from === 'turnwise' ? decodeTurnwise(lines) : decodeSweet(lines, { idPrefix: basename(file), now });
  for await (const ev of events) if (ev.kind === 'record') yield ev.record;
}

export const exportCommand: Command = {
  name: 'export',
  summary: 'convert a trajectory file to Turnwise JSONL, TRL chat JSONL, SWEET-RL JSONL or veRL Parquet',
  usage: [
    'Usage: npx turnwise export --in FILE --format jsonl|chat|sweet|parquet --out FILE [--from turnwise|sweet] [--json]',
    '',
    'Formats:',
    ...Object.entries(EXPORT_FORMATS).map(([k, f]) => `  ${k.padEnd(8)} ${f.description}`),
    '',
    'The input (Turnwise JSONL by default) is validated first; nothing is written if it has problems',
    '(see `turnwise import --check`). docs/data-formats.md describes every format.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, { in: { type: 'string' }, out: { type: 'string' }, format: { type: 'string' }, from: { type: 'string' } });
    if (!values.in || !values.out || !values.format) throw new UsageError('--in, --format and --out are required');
    await prepareOutFile(values.out);
    if (!isExportFormat(values.format)) throw new UsageError(`--format must be one of ${Object.keys(EXPORT_FORMATS).join(', ')}, got "${values.format}"`);
    const from = (values.from ?? 'turnwise') as ImportFormat;
    if (from !== 'turnwise' && from !== 'sweet') throw new UsageError(`--from must be turnwise or sweet, got "${from}"`);
    const now = Date.now();
    const { report: check } = await validateImport(createReadStream(values.in), { format: from, source: basename(values.in), maxErrors: 20, now });
    if (!check.ok) {
      report(!!values.json, { ok: false, in: values.in, errors: check.errors }, () =>
        [`${values.in}: invalid input, nothing written`, ...check.errors.map((e) => `  line ${e.line}${e.path ? ` ${e.path}` : ''}: ${e.message}`)].join('\n'),
      );
      return 1;
    }
    const partial = `${values.out}.partial`;
    const out = await open(partial, 'w');
    let bytes = 0;
    let written = 0;
    try {
      const onProgress = (p: { records: number }) => {
        written = p.records;
      };
      for await (const chunk of encodeExport(values.format, records(values.in, from, now), { onProgress })) {
        await out.write(chunk);
        bytes += chunk.length;
      }
      await out.close();
      await rename(partial, values.out);
    } catch (e) {
      await out.close().catch(() => undefined);
      await rm(partial, { force: true });
      throw e;
    }
    const result = { ok: true, in: values.in, out: values.out, format: values.format, records: written, runs: check.counts.runs, episodes: check.counts.episodes, bytes };
    report(!!values.json, result, () => `${values.out}: ${values.format}, ${written} records (${check.counts.episodes} episodes), ${bytes} bytes`);
    return 0;
  },
};
