// The `guess` collaborator's reply read as yes, no or unknown — or "unsure", when the words do not
// say (the lab then asks the person again instead of wasting the turn). A small rule-based reader,
// not a model: the reply is normalised (normalise.ts: case, accents, emoji, contractions, typos of yes
// and no), split into clauses at punctuation and at "but", "though", "and", …, and each clause is read
// on its own: idioms first ("of course not", "no doubt", "I don't think so"), then bare answer words with
// their negations, then a restatement of the attribute asked about ("it has fur", "no fur", "it can't
// fly", "it's a bird" for "is it a mammal?"), then a named animal of the table. The first clause that
// answers decides (so "Yes, but it can't swim" is yes); a hedge or "I don't know" before it, or a
// contradiction not introduced by a contrast ("yes, no"), makes the reply unsure; a correction
// ("No, wait, yes") starts over. test/unit/envs/guessAnswerTable.ts is the table it is held to.
import { normalise } from './normalise.ts';
import { ATTRIBUTES, ITEM_INDEX, ITEMS, type AttributeKey } from './table.ts';

/** How a reply was read. */
export interface Reading {
  /** yes / no; unknown when the person says they do not know; unsure when the words do not say. */
  kind: 'yes' | 'no' | 'unknown' | 'unsure';
  /** 1 for a plain answer, 0.9 for a restated attribute, 0.7 for a hedged lean ("probably"), 0 when unsure. */
  confidence: number;
}

// ---- idioms (multi-word cues, replaced by one marker token) ---------------------------------------

// Marker tokens an idiom becomes.
/** A plain yes ("no doubt", "uh huh") or no ("not at all", "no way"). */
const YES = '_yes_';
const NO = '_no_';
/** A certain yes that a negation turns into no ("of course" / "of course it doesn't"). */
const SURE = '_sure_';
/** A hedged yes, or no when negated ("I think so", "probably" / "probably not"). */
const LEAN = '_lean_';
/** A hedged no ("not really", "I doubt it"). */
const NOLEAN = '_nolean_';
/** Neither yes nor no ("sort of", "maybe", "it depends"). */
const HEDGE = '_hedge_';
/** The person does not know ("no idea", "not sure"). */
const UNK = '_unk_';
/** "I'm sure": alone a yes, beside an answer only its emphasis ("No, I'm sure"). */
const CERTAIN = '_certain_';

// Order matters: longer and negated idioms before the ones they contain.
const IDIOMS: [RegExp, string][] = [
  [
    /\b(i )?(do not|did not|would not|does not) (know|remember)\b|\bdunno\b|\bidk\b|\bno (idea|clue)\b|\bnot a clue\b|\b(am |is )?not (so |too |very |really |quite |entirely )?(sure|certain)\b|\b(unsure|uncertain|clueless)\b|\b(can|could) not (say|tell)\b|\b(hard|difficult|impossible) to (say|tell)\b|\bwho knows\b|\b(beats|search) me\b|\b(god|nobody|no one) knows\b|\brather not say\b|\bno comment\b|\b(unknown|not known)\b|\byour guess is as good as mine\b/g,
    UNK,
  ],
  [/\bnot as far as i (know|can tell|can see)\b|\bnot that i (know|am aware)( of)?\b|\bnot to my knowledge\b/g, NOLEAN],
  [
    /\b(of course|absolutely|definitely|certainly|surely|obviously|clearly|totally) not\b|\bhell no\b|\bheck no\b|\bno way\b|\bno chance\b|\bnot a chance\b|\bnot at all\b|\bnot in the (slightest|least)\b|\bby no means\b|\bnot even close\b|\bfar from it\b|\bnothing (of the sort|like that|like it)\b|\bnot one bit\b|\bnot even a (little|bit)\b|\buh uh\b|\bnuh uh\b|\bmm mm\b/g,
    NO,
  ],
  [/\bnot really\b|\bi doubt it\b|\bdoubt it\b|\bdoubtful\b|\bunlikely\b|\bhardly\b|\bbarely\b/g, NOLEAN],
  [
    /\byes and no\b|\bsort of\b|\bsorta\b|\bkind of\b|\bkinda\b|\bmaybe\b|\bperhaps\b|\bpossibly\b|\bsomewhat\b|\bpartly\b|\bpartially\b|\ba (little )?bit\b|\ba little\s*$|\ba little (?=[,.;:!?…])|\bin a way\b|\bin some ways\b|\bmore or less\b|\b(it )?depends\b|\bsometimes\b|\boccasionally\b|\b(could|might|may) be\b|\bmight\b|\b(it )?varies\b|\b50 50\b|\bfifty fifty\b|\bhalf\b|\bnot (exactly|quite|always|necessarily|entirely|completely|totally|usually|much|a lot|very)\b|\barguably\b|\btechnically\b|\bdebatable\b|\bin theory\b|\bsome (do|are|can|have|of them)\b|\bi hope (so|not)\b|\bso so\b|\bmeh\b/g,
    HEDGE,
  ],
  [
    /\bno doubt( about it)?\b|\bwithout (a )?doubt\b|\bno question( about it)?\b|\bwithout question\b|\bnot wrong\b|\buh huh\b|\bmm hmm\b|\bm+h+m+\b|\bmm+hm+\b|\bbingo\b|\bspot on\b|\bright on\b|\byou got it\b|\bhell yes\b|\bheck yes\b|\byou could say (that|so)\b|\bvery much( so)?\b/g,
    YES,
  ],
  [/\bi am (really |very |quite |absolutely |totally |completely )?(sure|certain|positive)\b/g, CERTAIN],
  [/\bof course\b|\bfor sure\b|\bsure thing\b|\bwhy not\b|\byou bet\b|\band how\b/g, SURE],
  [
    /\b(i )?(think|believe|guess|suppose|reckon|imagine|would say|would think) so\b|\bi (think|believe|guess|suppose|reckon)\b|\bguess so\b|\bseems( so| like it)?\b|\blooks (like it|that way|like)\b|\bit would seem\b|\breckon\b|\bas far as i (know|can tell|can see)\b|\bafaik\b|\b(pretty|fairly|quite|almost|reasonably) (sure|certain)\b|\b(most |very |quite )?(probably|likely)\b|\bpretty much\b|\bpresumably\b|\bapparently\b|\b(mostly|usually|generally|typically|normally|often)\b|\bmost of the time\b/g,
    LEAN,
  ],
];

// ---- words ---------------------------------------------------------------------------------------

/** Bare answers. */
const YES_WORDS = new Set(['yes', YES, 'correct', 'right', 'true', 'exactly', 'precisely', 'indeed', 'affirmative', 'positive', 'yessir']);
const NO_WORDS = new Set(['no', NO, NOLEAN, 'negative', 'false', 'wrong', 'incorrect', 'nein']);
/** Certainty words: yes, unless the clause negates them ("definitely not"). */
const SURE_WORDS = new Set([
  SURE,
  LEAN,
  CERTAIN,
  'sure',
  'certain',
  'surely',
  'definitely',
  'absolutely',
  'certainly',
  'obviously',
  'clearly',
  'totally',
  'naturally',
  'undoubtedly',
  'always',
  'totes',
]);
const NEGATORS = new Set(['not', 'never', 'none', 'nothing', 'neither', 'nor', 'without', 'lacks', 'lack', 'lacking', 'nowhere', 'doubt', NOLEAN, NO]);
const PRONOUNS = new Set(['it', 'they', 'he', 'she', 'this', 'that']);
const AUXILIARIES = new Set(['is', 'are', 'was', 'were', 'does', 'do', 'did', 'can', 'could', 'has', 'have', 'had', 'will', 'would']);
/** Words that carry no answer and no fact of their own. */
const FUNCTION_WORDS = new Set([
  ...PRONOUNS,
  ...AUXILIARIES,
  'be',
  'been',
  'am',
  'them',
  'their',
  'him',
  'her',
  'his',
  'these',
  'those',
  'one',
  'the',
  'a',
  'an',
  'i',
  'me',
  'my',
  'you',
  'your',
  'we',
  'us',
  'so',
  'too',
  'also',
  'very',
  'really',
  'quite',
  'just',
  'well',
  'oh',
  'ah',
  'uh',
  'um',
  'umm',
  'hmm',
  'hm',
  'hmmm',
  'er',
  'erm',
  'okay',
  'ok',
  'lol',
  'haha',
  'hehe',
  'then',
  'there',
  'here',
  'now',
  'still',
  'again',
  'ever',
  'even',
  'any',
  'at',
  'all',
  'of',
  'to',
  'and',
  'or',
  'as',
  'in',
  'on',
  'for',
  'with',
  'by',
  'please',
  'thanks',
  'thank',
  'animal',
  'thing',
  'creature',
  'answer',
  'question',
  'good',
  'great',
  'say',
  'said',
  'think',
  'believe',
  'know',
  'mean',
  'meant',
  'guess',
  'let',
  'see',
  'unfortunately',
  'sadly',
  'luckily',
  'fortunately',
  'honestly',
  'frankly',
  'basically',
  'afraid',
  'sir',
  'maam',
  'mate',
  'dude',
  'man',
  'buddy',
  'friend',
  'actually',
  'course',
  'most',
  'much',
]);
/** Clause openers that take back what came before. */
const CORRECTIONS = /^(actually|wait|sorry|oops|correction|i mean|i meant|scratch that|on second thought|hold on)\b/;
/** Conjunctions that start a new clause; the contrasting ones introduce extra facts, not the answer. */
const CONTRAST = new Set(['but', 'though', 'although', 'however', 'except', 'whereas', 'while']);
const JOINERS = new Set(['and', 'plus']);

// ---- the attribute restated ----------------------------------------------------------------------

interface Concept {
  /** Words that restate the attribute ("fur", "furry"). */
  yes: RegExp;
  /** Words that state its opposite ("hairless"; another class for "is it a mammal?"). */
  no?: RegExp;
  /** For size comparisons: the reference the question compares with ("than a person"). */
  than?: RegExp;
}

const CLASSES = ['mammals?', 'birds?', 'fish(es)?', 'reptiles?', 'insects?', 'amphibians?', 'arachnids?'];
const otherClasses = (own: number) => new RegExp(`\\b(${CLASSES.filter((_, i) => i !== own).join('|')})\\b`);
const BIG = /\b(bigger|larger|huge|enormous|giant|massive|big|large|heavier|taller)\b/;
const SMALL = /\b(smaller|small|tiny|little|mini|lighter)\b/;

const CONCEPTS: Record<AttributeKey, Concept> = {
  mammal: { yes: /\bmammals?\b/, no: otherClasses(0) },
  bird: { yes: /\b(birds?|feathers|feathered)\b/, no: otherClasses(1) },
  fish: { yes: /\bfish(es)?\b/, no: otherClasses(2) },
  reptile: { yes: /\breptiles?\b/, no: otherClasses(3) },
  insect: { yes: /\binsects?\b/, no: otherClasses(4) },
  fly: { yes: /\b(fly|flies|flys|flying|flyer|flier|flew|airborne)\b/, no: /\bflightless\b/ },
  water: { yes: /\b(water|aquatic|sea|seas|ocean|oceans|river|rivers|lake|lakes|underwater|marine|pond|ponds)\b/, no: /\b(on land|land animal|terrestrial)\b/ },
  fur: { yes: /\b(fur|furr|furry|furred|hair|hairy|fluffy|fuzzy)\b/, no: /\b(furless|hairless|bald)\b/ },
  meat: {
    yes: /\b(meat|carnivores?|carnivorous|predators?|predatory|omnivores?|omnivorous)\b/,
    no: /\b(herbivores?|herbivorous|vegetarian|vegan|only plants|plants only)\b/,
  },
  big: { yes: BIG, no: SMALL, than: /\bthan (a |an |the |most )?(person|people|human|humans|man|adult|adults|me|you|us)\b/ },
  small: { yes: SMALL, no: BIG, than: /\bthan (a |an |the |most )?(house )?(cat|cats|kitten)\b/ },
  pet: { yes: /\b(pets?|kept|keep|keeps|domestic|domesticated|tame|farm|farms|livestock)\b/, no: /\bwild\b/ },
  night: {
    yes: /(?<!sleeps? (at|during the) )\b(night|nights|nighttime)\b|\b(nocturnal|after dark)\b|\bsleeps? (in|during) the day\b/,
    no: /\bsleeps? (at|during the) night\b|\bdiurnal\b|(?<!sleeps? )\b(daytime|during the day|by day)\b/,
  },
  eggs: { yes: /\b(eggs?|lays)\b/, no: /\b(live young|live birth|born alive)\b/ },
  africa: { yes: /\b(africa|african)\b/ },
  pattern: { yes: /\b(stripes?|striped|stripy|spots?|spotted|spotty|patterns?|patterned)\b/, no: /\b(plain|solid colou?r(ed)?|one colou?r)\b/ },
  legs4: { yes: /\b(four legs|4 legs|four legged|4 legged|quadruped|on all fours|four feet)\b/, no: /\b(two|2|six|6|eight|8|no) legs\b|\b(legless|biped)\b/ },
  venom: { yes: /\b(venom|venomous|poison|poisonous|toxic|stings?)\b/, no: /\bharmless\b/ },
  horns: { yes: /\b(horns?|horned|antlers?)\b/, no: /\bhornless\b/ },
  cold: {
    yes: /\b(cold(?! blooded)|colder|arctic|antarctic|antarctica|polar|snow|snowy|ice|icy|freezing|frozen|tundra)\b/,
    no: /\b(warm(?! blooded)|hot|tropical|tropics|deserts?)\b/,
  },
};

/** After a negated restatement, a degree word moves the negation off the attribute: "doesn't fly far" still flies. */
const DEGREE = /^ (far|well|high|fast|long|very far|very well)\b/;
const NEGATOR_WORD = /\b(not|never|no|none|without|lacks?|lacking|neither|nor|doubt|_no_|_nolean_)\b/;

/** The clause's reading of the attribute asked about: yes, no, both, or null when it does not mention it. */
function restated(clause: string, key: AttributeKey): 'yes' | 'no' | 'mixed' | null {
  const c = CONCEPTS[key];
  // a size compared with something else than the question's reference says nothing ("bigger than a cat" for "bigger than a person?")
  if (c.than && ((/\bthan\b/.test(clause) && !c.than.test(clause)) || /\bas \w+ as\b|\bsize of\b/.test(clause))) return null;
  const y = c.yes.exec(clause);
  const n = c.no?.exec(clause) ?? null;
  if (y && n) return 'mixed';
  if (y) {
    const negated = NEGATOR_WORD.test(clause.slice(0, y.index));
    if (!negated) return 'yes';
    return DEGREE.test(clause.slice(y.index + y[0].length)) ? 'yes' : 'no';
  }
  if (n) return NEGATOR_WORD.test(clause.slice(0, n.index)) ? null : 'no';
  return null;
}

// Longest names first so "polar bear" wins over "bear".
const NAMES = [...ITEM_INDEX.keys()].sort((a, b) => b.length - a.length);
const NAMED = new RegExp(`^(?:(?:it|this|that) is |they are )?(?:a |an |the )?(${NAMES.join('|')})s?$`);

/** "It's a penguin": the named animal's fact for the attribute asked about. */
function named(clause: string, attribute: number): 'yes' | 'no' | null {
  const m = NAMED.exec(clause);
  return m ? (ITEMS[ITEM_INDEX.get(m[1])!].facts[attribute] ? 'yes' : 'no') : null;
}

// ---- clauses -------------------------------------------------------------------------------------

type ClauseKind = 'yes' | 'no' | 'unknown' | 'hedge' | 'mixed' | 'none';

interface ClauseReading {
  kind: ClauseKind;
  /** Polarity from a hedged word ("probably", "I think so"). */
  lean: boolean;
  /** Polarity from restating the attribute asked about. */
  restated: boolean;
  /** Only a certainty word ("definitely", "I'm sure"): a yes on its own, emphasis beside an answer. */
  echo: boolean;
}

interface Clause extends ClauseReading {
  /** Introduced by "but", "though", …: extra facts rather than the answer. */
  contrast: boolean;
  /** Opens with "actually", "wait", "I mean", …: takes back what came before. */
  correction: boolean;
}

const FILLERS = new Set(['well', 'oh', 'so', 'that', 'hmm', 'ok', 'okay']);

/** Not an answer word, a negator, a marker or a function word: a fact about something. */
function isContent(w: string | undefined): boolean {
  return w !== undefined && !FUNCTION_WORDS.has(w) && !YES_WORDS.has(w) && !NO_WORDS.has(w) && !SURE_WORDS.has(w) && !NEGATORS.has(w) && !w.startsWith('_');
}

function readClause(text: string, question: boolean, attribute: number | null): ClauseReading {
  const none: ClauseReading = { kind: 'none', lean: false, restated: false, echo: false };
  const tokens = text.split(' ').filter(Boolean);
  if (tokens.length === 0) return none;
  if (tokens.includes(UNK)) return { ...none, kind: 'unknown' };
  if (tokens.includes(HEDGE)) return { ...none, kind: 'hedge' };
  const lean = tokens.includes(LEAN) || tokens.includes(NOLEAN);
  const answer = (kind: 'yes' | 'no', restated = false): ClauseReading => ({ kind, lean, restated, echo: false });

  let yes = 0;
  let no = 0;
  let negators = 0;
  let extra = false;
  // the clause with each bare "no" answer masked, so it does not negate a restatement ("nah, it flies")
  const masked = tokens.slice();
  tokens.forEach((w, i) => {
    if (YES_WORDS.has(w)) {
      // "not true", "isn't correct": the "not" is spent on the answer word
      if (tokens[i - 1] === 'not') {
        no++;
        negators--;
      } else yes++;
    } else if (w === 'no' && isContent(tokens[i + 1]))
      negators++; // "no fur": a determiner, not an answer
    else if (NO_WORDS.has(w)) {
      no++;
      if (NEGATORS.has(w)) negators++;
      if (w === 'no') masked[i] = '_answer_';
    } else if (NEGATORS.has(w)) negators++;
    else if (isContent(w)) extra = true;
  });

  const concept = attribute === null ? null : (restated(masked.join(' '), ATTRIBUTES[attribute].key) ?? named(text, attribute));
  const bare = yes && no ? 'mixed' : yes ? 'yes' : no ? 'no' : null;
  if (bare === 'mixed' || concept === 'mixed') return { ...none, kind: 'mixed' };
  if (concept) return bare && bare !== concept ? { ...none, kind: 'mixed' } : answer(concept, true);
  if (bare === 'yes') return negators > 0 ? { ...none, kind: 'mixed' } : answer('yes');
  if (bare === 'no') return answer('no');
  if (extra) return none; // a fact about something else ("it has stripes" for "does it have fur?")
  if (negators > 0) return answer('no');
  const sure = tokens.filter((w) => SURE_WORDS.has(w));
  if (sure.length) return { ...answer('yes'), echo: true }; // "Definitely." answers; "No, definitely." only stresses
  // "It is." / "They do." / "Does." — but not the question "Is it?"
  const words = tokens.filter((w) => !FILLERS.has(w));
  const first = words[0] ?? tokens[0];
  if (!question && tokens.some((w) => AUXILIARIES.has(w)) && (PRONOUNS.has(first) || (words.length === 1 && AUXILIARIES.has(first)))) return answer('yes');
  return none;
}

/** Splits the normalised reply into clauses and reads each. */
function clauses(text: string, attribute: number | null): Clause[] {
  let t = text;
  for (const [re, marker] of IDIOMS) t = t.replace(re, ` ${marker} `);
  const out: Clause[] = [];
  let words: string[] = [];
  let contrast = false;
  let correction = false;
  const flush = (question: boolean) => {
    let body = words.join(' ');
    const opener = CORRECTIONS.exec(body);
    if (opener) body = body.slice(opener[0].length).trim();
    words = [];
    if (!body && !opener) return; // an empty clause keeps a pending "wait" for the next one
    out.push({ ...readClause(body, question, attribute), contrast, correction: correction || !!opener });
    correction = false;
  };
  for (const w of t.split(' ').filter(Boolean)) {
    if (w === '?') flush(true);
    else if (/^[.,;:!…()[\]"{}]+$/.test(w)) flush(false);
    else if (JOINERS.has(w)) flush(false);
    else if (CONTRAST.has(w)) {
      flush(false);
      contrast = true;
    } else if (w === 'wait' || w === 'actually') {
      flush(false);
      correction = true;
    } else words.push(w);
  }
  flush(false);
  return out;
}

const decisive = (c: Clause) => c.kind === 'yes' || c.kind === 'no';

/**
 * Reads a reply to a yes/no question about `attribute` (its index in ATTRIBUTES, or its key; omit it
 * when unknown, and restatements are not read).
 */
export function readReply(reply: string, attribute?: number | AttributeKey | null): Reading {
  const index = typeof attribute === 'string' ? ATTRIBUTES.findIndex((a) => a.key === attribute) : (attribute ?? -1);
  let cs = clauses(normalise(reply), index >= 0 ? index : null);
  // A correction that answers takes back everything before it.
  const last = cs.findLastIndex((c, i) => c.correction && cs.slice(i).some(decisive));
  if (last >= 0) cs = cs.slice(last);
  const unsure: Reading = { kind: 'unsure', confidence: 0 };
  // The first clause that answers decides; "definitely" alone answers only when nothing else does.
  let d = cs.findIndex((c) => decisive(c) && !c.echo);
  if (d < 0) d = cs.findIndex(decisive);
  if (d < 0) return cs.some((c) => c.kind === 'unknown') && !cs.some((c) => c.kind === 'mixed') ? { kind: 'unknown', confidence: 1 } : unsure;
  const decider = cs[d];
  if (cs.slice(0, d).some((c) => c.kind !== 'none' && !c.echo)) return unsure; // "maybe, yes", "I don't know, yes"
  let aside = false;
  for (const c of cs.slice(d + 1)) {
    aside ||= c.contrast;
    if (c.echo) continue; // "No, I'm sure"
    if (aside) {
      // after "but": extra facts, unless they restate the attribute the other way
      if (c.restated && decisive(c) && c.kind !== decider.kind) return unsure;
    } else if (c.kind !== 'none' && c.kind !== decider.kind) return unsure; // "yes, no", "yes, sort of"
  }
  return { kind: decider.kind as 'yes' | 'no', confidence: decider.lean ? 0.7 : decider.restated ? 0.9 : 1 };
}
