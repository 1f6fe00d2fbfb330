// Manual cross-check against the Rust crate, which `npm test` cannot install: our tokenizer vs
// Hugging Face tokenizers (Rust 0.22, via @anush008/tokenizers) and tokenizers.js on 500 random
// strings, and our chat template vs @huggingface/jinja. The tokenizers.js and @huggingface/jinja
// checks also run in every `npm test` (tokenizer/hfTokenizer.test.ts, bridge/chatTemplate.test.ts),
// on the shipped models' files. Run (docs/model.md):
//   mkdir /tmp/hfcheck && cd /tmp/hfcheck && npm init -y && npm install --ignore-scripts \
//     @anush008/tokenizers@0.6.0 @anush008/tokenizers-linux-x64-gnu@0.6.0 @huggingface/tokenizers@0.2.0 @huggingface/jinja
//   HFCHECK_DIR=/tmp/hfcheck npx tsx test/unit/tokenizer/hf-crosscheck.mts
import { createRequire } from 'node:module';
import { fitTokenizer } from '../../../src/rl/model/tokenizer/fit.ts';
import { serializeTokenizer, tokenizerConfigJson } from '../../../src/rl/model/tokenizer/hfJson.ts';
import { CHAT_TEMPLATE_JINJA, renderChat } from '../../../src/rl/model/tokenizer/chat.ts';
import { Rng } from '../../../src/rl/util/rng.ts';
const DIR = process.env.HFCHECK_DIR ?? '/tmp/hfcheck';
const require = createRequire(DIR + '/');
const { Tokenizer: HfTok } = require('@anush008/tokenizers');
const { Tokenizer: JsTok } = await import(DIR + '/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs');
const { Template } = await import(DIR + '/node_modules/@huggingface/jinja/dist/index.js');

const SAMPLE = [
  'Does it have feathers? Yes.',
  'Does it live in water? No.',
  'GUESS: eagle',
  'I WANT TO ANSWER: x * 2 + 1',
  '#####\n#P..#\n#####',
  '<think>go</think><answer>Left</answer>',
];
const tok = fitTokenizer([...SAMPLE, ...SAMPLE], { minCount: 2 });
const json = serializeTokenizer(tok);
const hf = HfTok.fromString(json);
const js = new JsTok(JSON.parse(json), tokenizerConfigJson(128));
const rng = new Rng(1);
const alphabet = [
  'Does',
  ' it',
  ' have',
  ' feathers',
  '?',
  ' ',
  '  ',
  '\n',
  '\t',
  'é',
  '😀',
  '中文',
  '<|end|>',
  '<0x41>',
  'x',
  '2',
  '42',
  ' 7',
  '#',
  '.',
  'GUESS:',
  '\r\n',
  '\u00a0',
  '\u2028',
  'A',
  'ß',
];
let bad = 0,
  badJs = 0,
  n = 0;
for (let i = 0; i < 500; i++) {
  const s = Array.from({ length: rng.int(12) }, () => rng.pick(alphabet)).join(rng.chance(0.5) ? '' : ' ');
  const ours = tok.encode(s, { parseSpecial: true });
  const enc = await hf.encode(s, null, { addSpecialTokens: false });
  const theirs = Array.from(enc.getIds() as number[]);
  const jsIds = (js.encode(s, { add_special_tokens: false }) as { ids: number[] }).ids;
  const dec = await hf.decode(ours, false);
  n++;
  if (JSON.stringify(ours) !== JSON.stringify(theirs) || dec !== s) {
    if (bad++ < 5) console.log('rust mismatch', JSON.stringify(s), ours, theirs, JSON.stringify(dec));
  }
  if (JSON.stringify(ours) !== JSON.stringify(Array.from(jsIds)) || (ours.length ? js.decode(ours) : '') !== s) {
    if (badJs++ < 5) console.log('js mismatch', JSON.stringify(s), ours, jsIds, JSON.stringify(js.decode(ours)));
  }
}
console.log(`rust tokenizers: ${n - bad}/${n} identical; tokenizers.js: ${n - badJs}/${n}`);
const messages = [
  { role: 'system', content: 'Guess.' },
  { role: 'assistant', content: 'Fly?' },
  { role: 'user', content: 'Yes.' },
];
const jinja = new Template(CHAT_TEMPLATE_JINJA).render({ messages, bos_token: '<|bos|>', add_generation_prompt: true });
const ours = renderChat(messages.map((m) => ({ ...m, role: m.role === 'assistant' ? 'agent' : m.role })) as never, { addGenerationPrompt: true });
console.log('jinja equal:', jinja === ours, jinja);
