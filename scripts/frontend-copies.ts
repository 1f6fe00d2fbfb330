// Does the policy copy frontend's block texts and colours, and does it apply the collaborator's edits
// (issue #47)? From the episodes of `turnwise eval --family frontend --out FILE`:
// - per block of the hidden design, whether the first draft names its text right (the prompt lists
//   every block's text, so this is a copy from the prompt);
// - for every colour a collaborator's reply asked for ("Block 2 background should be red, not blue."),
//   whether the next draft has that block's property at that colour (a copy from one line earlier);
// - for every difference a reply listed (any property, text, tag, count or page background), whether
//   the next draft no longer has it (the edit applied), and how many differences the next draft has
//   that its predecessor did not (what it broke while copying its own draft forward);
// - the share of drafts after the first that the environment cannot read (invalid HTML).
// Drafts are read as the environment reads them (ui/state/designs.ts designOfMessage) and compared by
// the collaborator's own list (envs/frontend/designs.ts differences).
// Usage: npx tsx scripts/frontend-copies.ts EPISODES.turnwise.jsonl
import { readFileSync } from 'node:fs';
import type { Design } from '../src/rl/envs/frontend/html.ts';
import { differences, type Difference } from '../src/rl/envs/frontend/designs.ts';
import { designOfMessage } from '../src/ui/state/designs.ts';
import { meanOf } from '../src/rl/util/stats.ts';

interface Line {
  task?: { family: string; hidden: string };
  turns?: { role: string; text: string }[];
}

const ASKED = /Block (\d+) (background|color) should be ([a-z]+), not/g;
const keyOf = (d: Difference) => `${d.block}:${d.key}`;
const texts: number[] = [];
const colours: number[] = [];
const applied: number[] = [];
const broken: number[] = [];
const unreadable: number[] = [];
let episodes = 0;
for (const raw of readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (!raw.trim()) continue;
  const line = JSON.parse(raw) as Line;
  if (!line.task || !line.turns || line.task.family !== 'frontend') continue;
  episodes++;
  const target = (JSON.parse(line.task.hidden) as { design: Design }).design;
  const agentTurns = line.turns.map((t, i) => ({ ...t, i })).filter((t) => t.role === 'agent');
  const drafts = agentTurns.map((t) => designOfMessage(t.text));
  target.blocks.forEach((b, i) => texts.push(drafts[0]?.blocks[i]?.text === b.text ? 1 : 0));
  for (const [k, turn] of agentTurns.entries()) {
    const reply = line.turns[turn.i + 1];
    if (!reply || reply.role === 'agent' || k + 1 >= agentTurns.length) continue;
    const before = drafts[k];
    const after = drafts[k + 1];
    unreadable.push(after ? 0 : 1);
    for (const m of reply.text.matchAll(ASKED)) {
      const block = after?.blocks[Number(m[1]) - 1];
      colours.push(block?.style[m[2] as 'background' | 'color'] === m[3] ? 1 : 0);
    }
    if (!before || !after) continue;
    const had = differences(target, before);
    const has = new Set(differences(target, after).map(keyOf));
    for (const d of had) if (reply.text.includes(d.text)) applied.push(has.has(keyOf(d)) ? 0 : 1);
    const hadKeys = new Set(had.map(keyOf));
    broken.push([...has].filter((key) => !hadKeys.has(key)).length);
  }
}
const share = (xs: number[]) => (xs.length ? `${(100 * meanOf(xs)).toFixed(1)}% of ${xs.length}` : 'none');
console.log(
  JSON.stringify({
    episodes,
    firstDraftTextsRight: share(texts),
    askedColoursCopied: share(colours),
    listedEditsApplied: share(applied),
    newDifferencesPerDraft: broken.length ? Number(meanOf(broken).toFixed(2)) : null,
    laterDraftsUnreadable: share(unreadable),
  }),
);
