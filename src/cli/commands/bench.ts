// `turnwise bench [NAME…]`: runs benchmark entries, writes bench/results/<name>.json each and
// regenerates bench/results/README.md, the table the README links to.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { UsageError, parseOptions, report, type Command } from '../command.ts';
import { projectRoot } from '../paths.ts';
import { BENCHES } from '../../../bench/registry.ts';
import type { BenchResult } from '../../../bench/harness.ts';

const resultsDir = () => join(projectRoot(), 'bench', 'results');

function format(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  return a >= 1000 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 0.1 ? v.toFixed(3) : v.toExponential(2);
}

/** The Markdown table of every stored result, one section per benchmark. */
export function renderTable(results: BenchResult[]): string {
  const out = ['# Benchmark results', '', 'Written by `npm run bench`; each section is one run on the machine named.', ''];
  for (const r of results.sort((a, b) => a.name.localeCompare(b.name))) {
    out.push(`## ${r.name}`, '', `${r.date} · ${r.machine.cpus} CPUs · Node ${r.machine.node}`, '');
    out.push('| case | metric | value | unit | note |', '| --- | --- | ---: | --- | --- |');
    for (const row of r.rows) out.push(`| ${row.case} | ${row.metric} | ${format(row.value)} | ${row.unit} | ${row.note ?? ''} |`);
    out.push('');
  }
  return out.join('\n');
}

export const bench: Command = {
  name: 'bench',
  summary: 'run benchmarks and write bench/results/<name>.json and a Markdown table',
  usage: `Usage: npx turnwise bench [NAME…] [--list] [--json]\n\nEntries: ${BENCHES.map((b) => `${b.name}${b.byDefault ? '' : ' (by name only)'}`).join(', ')}`,
  async run(argv) {
    const { values, positionals } = parseOptions(argv, { list: { type: 'boolean' } });
    if (values.list) {
      report(
        !!values.json,
        BENCHES.map(({ name, description, byDefault }) => ({ name, description, byDefault })),
        () => BENCHES.map((b) => `${b.name.padEnd(10)} ${b.description}`).join('\n'),
      );
      return 0;
    }
    const unknown = positionals.filter((p) => !BENCHES.some((b) => b.name === p));
    if (unknown.length) throw new UsageError(`unknown benchmark(s): ${unknown.join(', ')}`);
    const chosen = positionals.length ? BENCHES.filter((b) => positionals.includes(b.name)) : BENCHES.filter((b) => b.byDefault);
    await mkdir(resultsDir(), { recursive: true });
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const results: BenchResult[] = [];
    for (const entry of chosen) {
      log(`bench ${entry.name}: ${entry.description}`);
      const rows = await entry.run(log);
      const result: BenchResult = {
        name: entry.name,
        date: new Date().toISOString(),
        machine: { cpus: cpus().length, node: process.versions.node, platform: `${process.platform}-${process.arch}` },
        rows,
      };
      await writeFile(join(resultsDir(), `${entry.name}.json`), `${JSON.stringify(result, null, 2)}\n`);
      results.push(result);
    }
    const stored: BenchResult[] = [];
    for (const f of (await readdir(resultsDir())).filter((f) => f.endsWith('.json'))) {
      stored.push(JSON.parse(await readFile(join(resultsDir(), f), 'utf8')) as BenchResult);
    }
    const table = renderTable(stored);
    await writeFile(join(resultsDir(), 'README.md'), `${table}\n`);
    report(!!values.json, results, () => renderTable(results));
    return 0;
  },
};
