// `npm run check`'s and `npm test`'s file-length step: no file in src/ runs past 500 lines, the most
// we keep (docs/style.md: files past ~500 lines that mix concerns cost every reader; issue #44). A
// longer file is split by concept, not trimmed. Prints each offender with its length, and exits 1
// when there is any.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const LIMIT = 500;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

/** Lines as an editor counts them: a final newline does not start another line. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

const offenders = files(join(ROOT, 'src'))
  .map((p) => ({ path: relative(ROOT, p).split('\\').join('/'), lines: lineCount(readFileSync(p, 'utf8')) }))
  .filter((f) => f.lines > LIMIT)
  .sort((a, b) => b.lines - a.lines);
for (const f of offenders) process.stdout.write(`${f.path}: ${f.lines} lines, over the ${LIMIT} we keep\n`);
process.stdout.write(offenders.length ? `${offenders.length} file(s) in src/ run past ${LIMIT} lines\n` : `every file in src/ is at most ${LIMIT} lines\n`);
process.exitCode = offenders.length ? 1 : 0;
