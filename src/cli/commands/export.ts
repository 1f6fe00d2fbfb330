// `turnwise export --in FILE --format jsonl|chat|sweet|parquet|dpo|turn-dpo --out FILE`: converts a
// trajectory file (Turnwise JSONL, SWEET-RL JSONL or a JSON array, detected as import does) into any export format, with the same
// encoders the lab uses (src/rl/store/formats). The input is validated completely first; the output
// is written to FILE.partial and renamed at the end, so a failed export leaves no half-written file.
import { createReadStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { UsageError, parseOptions, report, type Command } from '../command.ts';
import { prepareOutFile } from '../output.ts';
import { decodeAny, validateImport, type ImportFormat } from '../../rl/store/importer.ts';
import { readLines } from '../../rl/store/formats/lines.ts';
import { EXPORT_FORMATS, encodeExport, isExportFormat, noPairsReason, type PairingSummary } from '../../rl/store/formats/index.ts';
import type { PortableRecord } from '../../rl/store/schema.ts';

/** The records of a file already known to be valid, streamed (decoded as validation read it). */
async function* records(file: string, from: ImportFormat | 'auto', now: number): AsyncGenerator<PortableRecord> {
  for await (const ev of decodeAny(readLines(createReadStream(file)), { format: from, source: basename(file), now })) if (ev.kind === 'record') yield ev.record;
}

export const exportCommand: Command = {
  name: 'export',
  summary: 'convert a trajectory file to Turnwise JSONL, TRL chat JSONL, SWEET-RL JSONL or veRL Parquet',
  usage: [
    `Usage: npx turnwise export --in FILE --format ${Object.keys(EXPORT_FORMATS).join('|')} --out FILE [--from auto|turnwise|sweet] [--json]`,
    '',
    'Formats:',
    ...Object.entries(EXPORT_FORMATS).map(([k, f]) => `  ${k.padEnd(8)} ${f.description}`),
    '',
    "The input's format is detected (Turnwise JSONL, SWEET-RL JSONL, a JSON array; --from forces one)",
    'and the whole input is validated first; nothing is written if it has problems (see',
    '`turnwise import --check`). docs/data-formats.md describes every format.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, { in: { type: 'string' }, out: { type: 'string' }, format: { type: 'string' }, from: { type: 'string' } });
    if (!values.in || !values.out || !values.format) throw new UsageError('--in, --format and --out are required');
    await prepareOutFile(values.out);
    if (!isExportFormat(values.format)) throw new UsageError(`--format must be one of ${Object.keys(EXPORT_FORMATS).join(', ')}, got "${values.format}"`);
    const from = (values.from ?? 'auto') as ImportFormat | 'auto';
    if (from !== 'auto' && from !== 'turnwise' && from !== 'sweet') throw new UsageError(`--from must be auto, turnwise or sweet, got "${from}"`);
    const now = Date.now();
    const { report: check } = await validateImport(createReadStream(values.in), { format: from, source: basename(values.in), maxErrors: 20, now });
    if (!check.ok) {
      report(!!values.json, { ok: false, in: values.in, detected: check.detected, errors: check.errors }, () =>
        [
          `${values.in}: invalid input (${check.detected || 'format unknown'}), nothing written`,
          ...check.errors.map((e) => `  line ${e.line}${e.path ? ` ${e.path}` : ''}: ${e.message}`),
        ].join('\n'),
      );
      return 1;
    }
    const partial = `${values.out}.partial`;
    const out = await open(partial, 'w');
    let bytes = 0;
    let written = 0;
    const seen: { pairing?: PairingSummary } = {};
    try {
      const onProgress = (p: { records: number }) => {
        written = p.records;
      };
      for await (const chunk of encodeExport(values.format, records(values.in, from, now), { onProgress, onPairing: (p) => (seen.pairing = p) })) {
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
    const result = {
      ok: true,
      in: values.in,
      from: check.format,
      detected: check.detected,
      out: values.out,
      format: values.format,
      records: written,
      runs: check.counts.runs,
      episodes: check.counts.episodes,
      bytes,
    };
    // Pairs need two finished episodes of one task; `eval` plays each task once, so say where pairs come from.
    const none = seen.pairing ? noPairsReason(seen.pairing) : null;
    const hint = none ? `\n  no pairs: ${none} (e.g. \`turnwise passkt --n 4 --out FILE\` plays each task 4 times)` : '';
    report(!!values.json, result, () => `${values.out}: ${values.format}, ${written} records (${check.counts.episodes} episodes), ${bytes} bytes${hint}`);
    return 0;
  },
};
