// The first step of reading a `guess` collaborator's reply (answers.ts): one canonical spelling, so
// that the reader's rules match words, not their variants — lower case without accents, emoji as the
// words they stand for, contractions expanded ("can't" → "can not"), typos and slang of yes and no
// ("yass", "nope", "yup") as yes and no, punctuation kept as separate tokens (clauses split there).
const EMOJI: [RegExp, string][] = [
  [/[👍👌✅✔☑🙆💯]/gu, ' yes '],
  [/[👎❌✖✗✘🙅🚫⛔]/gu, ' no '],
  [/🤷/gu, ' dunno '],
  [/🤔/gu, ' hmm '],
];

// Whole-word spellings of a few answer words (typos and slang) → their canonical form.
const SPELLINGS: Record<string, string> = {
  ofc: 'of course',
  def: 'definitely',
  defo: 'definitely',
  deffo: 'definitely',
  definately: 'definitely',
  definatly: 'definitely',
  definitly: 'definitely',
  absolutly: 'absolutely',
  absolutley: 'absolutely',
  absolutelly: 'absolutely',
  certianly: 'certainly',
  surley: 'surely',
  shure: 'sure',
  suree: 'sure',
  corect: 'correct',
  correcto: 'correct',
  rite: 'right',
  tru: 'true',
  probly: 'probably',
  prolly: 'probably',
  probaly: 'probably',
  probs: 'probably',
  prob: 'probably',
  probbaly: 'probably',
  dont: 'do not',
  doesnt: 'does not',
  isnt: 'is not',
  cant: 'can not',
  cannot: 'can not',
  wont: 'will not',
  didnt: 'did not',
  arent: 'are not',
  wasnt: 'was not',
  werent: 'were not',
  hasnt: 'has not',
  havent: 'have not',
  wouldnt: 'would not',
  couldnt: 'could not',
  shouldnt: 'should not',
  aint: 'is not',
  its: 'it is',
  thats: 'that is',
  im: 'i am',
  youre: 'you are',
  theyre: 'they are',
  yh: 'yes',
  ive: 'i have',
  id: 'i would',
  oui: 'yes',
  si: 'yes',
  ja: 'yes',
  non: 'no',
  nein: 'no',
  aye: 'yes',
  yessir: 'yes sir',
  yay: 'yes',
  yesh: 'yes',
  yis: 'yes',
  yus: 'yes',
  ys: 'yes',
  yse: 'yes',
  y: 'yes',
  n: 'no',
};

const YES_FORMS = [/^y+e+s+$/, /^y+e+[sz]+h?$/, /^y+a+s+$/, /^y+e*a+[hp]*$/, /^y+e+h+$/, /^y+e+$/, /^y+a+h*$/, /^y+[eu]+p+(ers)?$/, /^y+e+a+p+$/, /^y+e+a+s+$/];
const NO_FORMS = [/^n+o+$/, /^n+o+p+e*s?$/, /^n+a+h*$/, /^n+a+w+$/, /^n+a+y+$/];

/** One token's canonical spelling: every form of yes becomes "yes", every form of no "no". */
function canonicalWord(w: string): string {
  if (w in SPELLINGS) return SPELLINGS[w];
  if (YES_FORMS.some((re) => re.test(w))) return 'yes';
  if (NO_FORMS.some((re) => re.test(w))) return 'no';
  return w;
}

/** Lower case, no accents, emoji as words, contractions expanded, punctuation kept as separators. */
export function normalise(reply: string): string {
  let t = reply.normalize('NFKD').replace(/\p{M}/gu, '');
  for (const [re, word] of EMOJI) t = t.replace(re, word);
  t = t
    .replace(/[^\p{L}\p{N}\s'’‘`´.,;:!?…()[\]"{}%/_–—-]/gu, ' ')
    .toLowerCase()
    .replace(/[’‘`´]/g, "'")
    .replace(/100 ?%|100 percent|a hundred percent/g, ' for sure ')
    .replace(/\bcan'?t\b/g, 'can not')
    .replace(/\bwon'?t\b/g, 'will not')
    .replace(/\bain'?t\b/g, 'is not')
    .replace(/n't\b/g, ' not')
    .replace(/'s\b/g, ' is')
    .replace(/'re\b/g, ' are')
    .replace(/'m\b/g, ' am')
    .replace(/'d\b/g, ' would')
    .replace(/'ll\b/g, ' will')
    .replace(/'ve\b/g, ' have')
    .replace(/'/g, '')
    .replace(/\s[-–—]+\s|[–—]/g, ' , ')
    .replace(/[-/_]/g, ' ')
    .replace(/([.,;:!?…()[\]"{}])/g, ' $1 ');
  return t
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => (/^[a-z]+$/.test(w) ? canonicalWord(w) : w))
    .join(' ');
}
