// Two policies on the same tasks, paired (issue #47's comparisons of forged models): from the episodes
// of two `turnwise eval --out FILE` runs, per family the success of each on the tasks both played
// (matched by family, seed and options) and B − A with its 95% percentile bootstrap interval over
// tasks (rollout/successStats.ts, the interval every learning figure uses).
// Usage: npx tsx scripts/paired-episodes.ts A.turnwise.jsonl B.turnwise.jsonl
import { createReadStream } from 'node:fs';
import { pairedDifference, successInterval } from '../src/rl/rollout/successStats.ts';
import { readLines } from '../src/rl/store/formats/lines.ts';
import { decodeTurnwise } from '../src/rl/store/formats/turnwise.ts';

/** family → task key → success (1/0) of the file's finished episodes, read as the lab's import reads them (a bad line stops it). */
async function outcomes(path: string): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  for await (const ev of decodeTurnwise(readLines(createReadStream(path)))) {
    if (ev.kind === 'issue') throw new Error(`${path}: line ${ev.issue.line}: ${ev.issue.message}`);
    const r = ev.record;
    if (r.type !== 'episode' || !r.outcome) continue;
    const family = out.get(r.task.family) ?? new Map<string, number>();
    family.set(`${r.task.seed}/${JSON.stringify(r.task.options ?? {})}`, r.outcome.success ? 1 : 0);
    out.set(r.task.family, family);
  }
  return out;
}

const [a, b] = await Promise.all([process.argv[2], process.argv[3]].map(outcomes));
const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(1));
const signed = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`);
for (const [family, byTask] of a) {
  const other = b.get(family);
  const keys = [...byTask.keys()].filter((k) => other?.has(k));
  if (!other || keys.length === 0) continue;
  const xa = keys.map((k) => byTask.get(k) as number);
  const xb = keys.map((k) => other.get(k) as number);
  const d = pairedDifference(xa, xb);
  const [ia, ib] = [successInterval(xa), successInterval(xb)];
  console.log(
    `${family}: ${keys.length} tasks, A ${pct(ia.estimate)}%, B ${pct(ib.estimate)}%, B − A ${signed(d.estimate)} [${signed(d.low)}, ${signed(d.high)}]`,
  );
}
