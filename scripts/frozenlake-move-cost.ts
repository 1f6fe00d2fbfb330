// What one bad move costs on frozenlake (issue #45 check (a)), structurally and exactly: at every state
// the played episodes visit, the win probability within the turns left after the best move minus
// after the worst one, both continued by the optimal planner (finite-horizon value iteration,
// solveLake), and the same for the move the agent sent. Reads the episodes of `turnwise eval --out`.
// Usage: npx tsx scripts/frozenlake-move-cost.ts EPISODES.turnwise.jsonl
import { readFileSync } from 'node:fs';
import { DIRECTIONS, readChoice } from '../src/rl/envs/ragen/common.ts';
import { moveValue, solveLake } from '../src/rl/envs/ragen/frozenlake.ts';
import { meanOf } from '../src/rl/util/stats.ts';

interface Turn {
  role: string;
  text: string;
  info?: { position?: number };
}
interface Line {
  task?: { family: string; options?: { maxTurns?: number; slip?: number }; hidden: string };
  turns?: Turn[];
}

const costs = { worst: [] as number[], firstWorst: [] as number[], sent: [] as number[] };
for (const text of readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!text.trim()) continue;
  const line = JSON.parse(text) as Line;
  if (!line.task || !line.turns || line.task.family !== 'frozenlake') continue;
  const hidden = JSON.parse(line.task.hidden) as { cells: string; start: number; slip: number };
  const horizon = line.task.options?.maxTurns ?? 50;
  const { value } = solveLake(hidden.cells, horizon, hidden.slip);
  let player = hidden.start;
  let t = 0;
  for (const turn of line.turns) {
    if (turn.role !== 'agent') {
      if (turn.info?.position !== undefined) player = turn.info.position;
      continue;
    }
    const qs = [0, 1, 2, 3].map((a) => moveValue(value[horizon - t - 1], player, a, hidden.slip));
    const best = Math.max(...qs);
    costs.worst.push(best - Math.min(...qs));
    if (t === 0) costs.firstWorst.push(best - Math.min(...qs));
    const dir = readChoice(turn.text, DIRECTIONS);
    if (dir) costs.sent.push(best - qs[DIRECTIONS.indexOf(dir)]);
    t++;
  }
}

const summary = (xs: number[]) => ({
  states: xs.length,
  meanPoints: 100 * meanOf(xs),
  shareAtLeast25: xs.filter((x) => x >= 0.25).length / xs.length,
});
console.log(JSON.stringify({ worstMove: summary(costs.worst), worstFirstMove: summary(costs.firstWorst), sentMove: summary(costs.sent) }, null, 2));
