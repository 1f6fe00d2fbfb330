// Two policies on the same tasks, paired (issue #47's comparisons of forged models): from the episodes
// of two `turnwise eval --out FILE` runs, per family the success of each on the tasks both played
// (matched by family, seed and options) and B − A with its 95% percentile bootstrap interval over
// tasks (rollout/successStats.ts, the interval every learning figure uses).
// Usage: npx tsx scripts/paired-episodes.ts A.turnwise.jsonl B.turnwise.jsonl
import { readFileSync } from 'node:fs';
import { pairedDifference, successInterval } from '../src/rl/rollout/successStats.ts';

interface Line {
  type?: string;
  task?: { family: string; seed: number; options?: unknown };
  outcome?: { success: boolean };
}

/** family → task key → success (1/0) of the file's completed episodes. */
function outcomes(path: string): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const raw of readFileSync(path, 'utf8').split('\n')) {
    if (!raw.trim()) continue;
    const line = JSON.parse(raw) as Line;
    if (line.type !== 'episode' || !line.task || !line.outcome) continue;
    const family = out.get(line.task.family) ?? new Map<string, number>();
    family.set(`${line.task.seed}/${JSON.stringify(line.task.options ?? {})}`, line.outcome.success ? 1 : 0);
    out.set(line.task.family, family);
  }
  return out;
}

const [a, b] = [process.argv[2], process.argv[3]].map(outcomes);
const pct = (x: number | null) => (x === null ? '—' : (100 * x).toFixed(1));
for (const [family, byTask] of a) {
  const other = b.get(family);
  const keys = [...byTask.keys()].filter((k) => other?.has(k));
  if (!other || keys.length === 0) continue;
  const xa = keys.map((k) => byTask.get(k) as number);
  const xb = keys.map((k) => other.get(k) as number);
  const d = pairedDifference(xa, xb);
  const [ia, ib] = [successInterval(xa), successInterval(xb)];
  const signed = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`);
  console.log(
    `${family}: ${keys.length} tasks, A ${pct(ia.estimate)}%, B ${pct(ib.estimate)}%, B − A ${signed(d.estimate)} [${signed(d.low)}, ${signed(d.high)}]`,
  );
}
