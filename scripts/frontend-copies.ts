// Does the policy copy frontend's block texts and colours (issue #47)? From the episodes of `turnwise
// eval --family frontend --out FILE`: per block of the hidden design, whether the first draft names
// its text right (the prompt lists every block's text, so this is a copy from the prompt), and, for
// every colour a collaborator's reply asked for ("Block 2 background should be red, not blue."),
// whether the next draft has that block's property at that colour (a copy from one line earlier).
// Drafts are read as the environment reads them (ui/state/designs.ts designOfMessage).
// Usage: npx tsx scripts/frontend-copies.ts EPISODES.turnwise.jsonl
import { readFileSync } from 'node:fs';
import type { Design } from '../src/rl/envs/frontend/html.ts';
import { designOfMessage } from '../src/ui/state/designs.ts';
import { meanOf } from '../src/rl/util/stats.ts';

interface Line {
  task?: { family: string; hidden: string };
  turns?: { role: string; text: string }[];
}

const ASKED = /Block (\d+) (background|color) should be ([a-z]+), not/g;
const texts: number[] = [];
const colours: number[] = [];
let episodes = 0;
for (const raw of readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!raw.trim()) continue;
  const line = JSON.parse(raw) as Line;
  if (!line.task || !line.turns || line.task.family !== 'frontend') continue;
  episodes++;
  const target = (JSON.parse(line.task.hidden) as { design: Design }).design;
  const agentTurns = line.turns.map((t, i) => ({ ...t, i })).filter((t) => t.role === 'agent');
  const first = agentTurns.length ? designOfMessage(agentTurns[0].text) : null;
  target.blocks.forEach((b, i) => texts.push(first?.blocks[i]?.text === b.text ? 1 : 0));
  for (const [k, turn] of agentTurns.entries()) {
    const reply = line.turns[turn.i + 1];
    const next = agentTurns[k + 1];
    if (!reply || reply.role === 'agent' || !next) continue;
    const draft = designOfMessage(next.text);
    for (const m of reply.text.matchAll(ASKED)) {
      const block = draft?.blocks[Number(m[1]) - 1];
      colours.push(block?.style[m[2] as 'background' | 'color'] === m[3] ? 1 : 0);
    }
  }
}
const share = (xs: number[]) => (xs.length ? `${(100 * meanOf(xs)).toFixed(1)}% of ${xs.length}` : 'none');
console.log(JSON.stringify({ episodes, firstDraftTextsRight: share(texts), askedColoursCopied: share(colours) }));
