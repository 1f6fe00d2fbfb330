// The varied training phrasings of the simulated collaborators (issue 18): the canonical phrasings
// plus many other ways a person says the same answer — short and long, hedged (a lean the reader
// still takes as yes or no: "I think so", "probably not"), slang and typos ("yse", "nope, it doesnt"),
// remarks that add nothing ("Yes. I checked my notes twice."), and extra facts: a quarter of the yes/no
// answers add one true fact about another attribute of the animal ("No. It lives in Africa."), kept
// only where the reader still reads the answer as meant (guess/env.ts simulatedReply).
// test/unit/envs/phrasings.test.ts holds every guess phrasing to the reader for every attribute and
// every backend template to its exact value; test/fixtures/phrasings-heldout.json shares none of them.
import { CANONICAL_PHRASINGS, type Phrasings, type PhrasingSetting } from './phrasings.ts';
import { composeStatements, TRAINING_STATEMENT_PARTS } from './wordings.ts';

/** The written backend statements, the canonical ones first. */
const WRITTEN_STATEMENTS: readonly string[] = [
  'The {name} is {value}{unit}.',
  'The {name} should be {value}{unit}.',
  'Use {value}{unit} for the {name}.',
  '{name}: {value}{unit}.',
  "It's {value}{unit} for the {name}.",
  'The {name}? That would be {value}{unit}.',
  'We use {value}{unit} as the {name}.',
  'Set the {name} to {value}{unit}.',
  'The {name} we agreed on is {value}{unit}.',
  'Make the {name} {value}{unit}, please.',
  "I'd go with {value}{unit} for the {name}.",
  'For the {name}, use {value}{unit}.',
  '{value}{unit} is the {name}.',
  'The {name} is {value}{unit}, as far as I remember.',
  'Please use a {name} of {value}{unit}.',
  'Our {name} is {value}{unit}.',
  'the {name} is {value}{unit}',
  'The {name} is {value}{unit}. Let me know if you need anything else.',
  'Teh {name} is {value}{unit}.',
  'The {name} shoud be {value}{unit}.',
  'Good question: the {name} is {value}{unit}.',
  'The {name} is {value}{unit}, no more, no less.',
];

/**
 * How many times each written statement is listed beside the ones composed from parts (wordings.ts:
 * other orders, moods, hedges, fillers and punctuation), so the written ones, the canonical among
 * them, make about 30% of the draws instead of 12%. 450 forge steps on the plain list closed the
 * held-out gap (80.0% held-out against 78.5% canonical) but left the canonical wording 5 points under
 * the same steps on the written statements alone; listed 3 times: 83.0% canonical, 81.0% held-out;
 * 7 times: 84.0%, 79.0% (backend, 200 test tasks, sampled; docs/experiments/2026-12-06-wordings-weighted.md).
 */
const WRITTEN_REPEATS = 3;

const WEIGHTED_STATEMENTS: readonly string[] = [
  ...Array.from({ length: WRITTEN_REPEATS }, () => WRITTEN_STATEMENTS).flat(),
  ...composeStatements(TRAINING_STATEMENT_PARTS, 160, 47).filter((t) => !WRITTEN_STATEMENTS.includes(t)),
];

/** The varied phrasings the forge may train on (`phrasings: 'varied'`); the canonical ones are among them. */
export const TRAINING_PHRASINGS: Phrasings = {
  guess: {
    yes: [
      'Yes.',
      'Yes, that is right.',
      'Yes, it is.',
      'Yep.',
      'Yeah.',
      'Yes!',
      'yes',
      'Yup, it does.',
      'Correct.',
      "That's right.",
      'Right.',
      'Sure.',
      'Of course.',
      'Definitely.',
      'Absolutely, yes.',
      'Indeed.',
      'Yes it does.',
      'It does.',
      'Certainly.',
      'Affirmative.',
      'Yes, definitely.',
      'Yes indeed.',
      'yeah',
      'yea',
      'yess',
      'Yse.',
      'Yes, I think so.',
      'I think so.',
      'Probably, yes.',
      'Most likely.',
      'Yes, that is correct, good question.',
      "Yes, that's exactly right.",
      'Yes, and that should help you narrow it down.',
      'Yes. I checked my notes twice.',
      "Yes, that's true of the animal I'm thinking of.",
      'Yeah, it does.',
      'Yes, it dose.',
      'yes it is',
      'Oh yes.',
      'Yes, for sure.',
      'You got it, yes.',
      'Uh huh.',
      'Yes, sir.',
      'YES',
      'Correct, it does.',
      'That is true.',
      'True.',
      'Yes, good guess on that one.',
      'Yes — spot on.',
      'Yes, it certainly does.',
    ],
    no: [
      'No.',
      'No, that is wrong.',
      'No, it is not.',
      'Nope.',
      'Nah.',
      'No!',
      'no',
      'Not at all.',
      'Negative.',
      'It does not.',
      "It doesn't.",
      'Definitely not.',
      'Of course not.',
      'No way.',
      'Wrong.',
      "That's wrong.",
      'Incorrect.',
      'Nope, sorry.',
      "I don't think so.",
      'Probably not.',
      'Noo.',
      "No, it doesn't.",
      'Not really.',
      'No, and that should help you narrow it down.',
      'No. I checked my notes twice.',
      "No, that's not true of the animal I'm thinking of.",
      'Nope, it doesnt.',
      "No, it dosen't.",
      'Nop.',
      'NO',
      'That is false.',
      'False.',
      'No, not at all.',
      'Absolutely not.',
      'No, sorry, try another question.',
      "Nah, it doesn't.",
      "No, it isn't.",
      "I don't believe so.",
      'No — not this one.',
      'Not this time, no.',
      'no it is not',
      'Certainly not.',
      'No, definitely not.',
    ],
    unknown: [
      "I don't know.",
      'I am not sure.',
      'No idea.',
      'Not sure.',
      "I'm not sure about that one.",
      'Hard to say.',
      "I can't tell you.",
      'Dunno.',
      'idk',
      'Beats me.',
      'I have no idea, sorry.',
      "I honestly don't know.",
      'Who knows?',
      'No clue.',
      "Can't say.",
      'I dont know.',
      'I dunno.',
      'Not shure.',
      "I really can't say.",
      "I'm not certain.",
      "I don't remember.",
      "Sorry, I don't know that one.",
      "I'm unsure.",
      'Your guess is as good as mine.',
      "I couldn't tell you.",
      'No idea, to be honest.',
      "That I don't know.",
      "Hmm, I'm not sure.",
      "I don't know, sorry.",
      'I do not know.',
    ],
    // a quarter of the yes/no answers add a true fact about the animal ("Yes. It lives in Africa.")
    factRate: 0.25,
  },
  backend: {
    statement: WEIGHTED_STATEMENTS,
    unknown: [
      "I don't know.",
      'I can only tell you about the numbers I listed.',
      'Sorry, I only know the numbers I listed.',
      "That's not something I can help with.",
      'I can only answer about the listed numbers.',
      'No idea, ask me about the numbers I listed.',
      "I'm not sure what you mean; ask about one of the numbers.",
      'I only know the values listed above.',
      'Not something I know about.',
      'Ask me about one of the listed numbers instead.',
      'dunno, I only know the listed numbers',
    ],
    unsure: [
      'I am not sure.',
      "I'm not sure about the {name}.",
      "I don't remember the {name}.",
      'Not sure, sorry.',
      "I can't recall the {name} right now.",
      'Hmm, I forget the {name}.',
      "I'm not certain about that one.",
      "Let me think... no, I don't know the {name}.",
    ],
  },
};

/** The phrasings a setting names: 'canonical' (the default), 'varied' (the training set) or explicit ones. */
export function resolvePhrasings(setting: PhrasingSetting | undefined): Phrasings {
  if (setting === undefined || setting === 'canonical') return CANONICAL_PHRASINGS;
  return setting === 'varied' ? TRAINING_PHRASINGS : setting;
}
