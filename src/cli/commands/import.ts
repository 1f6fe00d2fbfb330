// `turnwise import --check FILE`: validates a trajectory file exactly as the lab's import does (same
// code: src/rl/store/importer.ts) and reports every problem by line number and field. The command line
// has no IndexedDB, so it only checks; the lab imports.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { UsageError, intOption, parseOptions, report, type Command } from '../command.ts';
import { validateImport, type ImportFormat } from '../../rl/store/importer.ts';
import { shownPath } from '../output.ts';

/**
 * Why the file's first 64 KiB are not text (a NUL byte, or bytes that are not UTF-8), or null: a binary
 * file is refused as such, not reported as "0 lines" beside a hundred line problems.
 */
async function notText(file: string): Promise<string | null> {
  const fh = await open(file, 'r');
  try {
    const buf = new Uint8Array(65536);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf.subarray(0, bytesRead);
    if (head.includes(0)) return 'it holds NUL bytes';
    try {
      // stream: a multi-byte character cut at the 64 KiB boundary is not an error
      new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: bytesRead === buf.length });
    } catch {
      return 'it is not UTF-8';
    }
    return null;
  } finally {
    await fh.close();
  }
}

export const importCommand: Command = {
  name: 'import',
  summary: 'validate a trajectory file (Turnwise JSONL, SWEET-RL JSONL or a JSON array; detected) and report problems by line',
  usage: [
    'Usage: npx turnwise import --check FILE [--format auto|turnwise|sweet] [--max-errors N] [--json]',
    '',
    'Validates every line as the lab would before importing (all or nothing). Exit code 0 when the',
    'file would import, 1 when it has problems. --max-errors stops after N problems (default 100).',
    '--format auto (the default) tells Turnwise JSONL (header line), SWEET-RL / ColBench JSONL',
    '({task, dialogue_history} per line) and a JSON array of SWEET-RL records apart, and says which it read.',
  ].join('\n'),
  async run(argv) {
    const { values } = parseOptions(argv, { check: { type: 'string' }, format: { type: 'string' }, 'max-errors': { type: 'string' } });
    if (!values.check) throw new UsageError('the command line has no database: use --check FILE to validate (the lab imports)');
    const format = (values.format ?? 'auto') as ImportFormat | 'auto';
    if (format !== 'auto' && format !== 'turnwise' && format !== 'sweet') throw new UsageError(`--format must be auto, turnwise or sweet, got "${format}"`);
    const maxErrors = intOption(values['max-errors'], 'max-errors', 100, 1);
    const file = values.check;
    const binary = await notText(file).catch((e: NodeJS.ErrnoException) => {
      throw new Error(`cannot read ${shownPath(file)} (${e.code ?? e.message})`);
    });
    if (binary) {
      report(
        !!values.json,
        { file, ok: false, text: false, error: `not a text file: ${binary}` },
        () => `${shownPath(file)}: INVALID — not a text file (${binary}); expected JSONL`,
      );
      return 1;
    }
    const { report: r } = await validateImport(createReadStream(file), { format, source: basename(file), maxErrors });
    report(!!values.json, { file, ...r }, () =>
      [
        `${shownPath(file)}: ${r.detected || 'format unknown'}`,
        `${shownPath(file)}: ${r.ok ? 'OK' : 'INVALID'} — ${r.lines} lines, ${r.counts.runs} runs, ${r.counts.episodes} episodes, ${r.counts.turns} turns`,
        ...r.errors.map((e) => `  line ${e.line}${e.path ? ` ${e.path}` : ''}: ${e.message}`),
        ...(r.stoppedEarly ? [`  … stopped after ${r.errors.length} problems`] : []),
      ].join('\n'),
    );
    return r.ok ? 0 : 1;
  },
};
