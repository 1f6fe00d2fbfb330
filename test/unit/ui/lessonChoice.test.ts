// The family menus' choice (ui/state/lessonChoice.ts): a lesson's value is family@lesson and reads
// back; its options are the lesson's, a forged choice's the policy's (else the family's defaults);
// a lesson of another family, or an unknown one, is no lesson.
import { describe, expect, it } from 'vitest';
import { choiceOptions, choiceStart, choiceValue, chosenLesson, parseChoice } from '../../../src/ui/state/lessonChoice.ts';
import { findLesson } from '../../../src/rl/envs/registry.ts';
import { adapterBase } from '../../../src/ui/state/adapterList.ts';
import type { ModelMeta } from '../../../src/rl/runtime/api.ts';

const policy = { tasks: { guess: { candidates: 4, maxTurns: 4 } } } as unknown as ModelMeta;

describe('lesson choice', () => {
  it('encodes a lesson as family@lesson and reads it back', () => {
    expect(choiceValue('guess', 'turns-decide')).toBe('guess@turns-decide');
    expect(parseChoice('guess@turns-decide', 'bandit')).toEqual({ family: 'guess', lesson: 'turns-decide' });
    expect(choiceValue('guess', null)).toBe('guess');
    expect(parseChoice('sokoban', 'guess')).toEqual({ family: 'sokoban', lesson: null });
  });

  it("gives the lesson's options, else the policy's forged ones", () => {
    expect(choiceOptions(policy, 'guess', 'turns-decide')).toEqual({ candidates: 8, maxTurns: 4, pool: 13 });
    expect(choiceOptions(policy, 'guess', null)).toEqual({ candidates: 4, maxTurns: 4 });
    expect(choiceOptions(undefined, 'guess', null)).toBeUndefined();
  });

  it('drops a lesson that is not the chosen family’s, or unknown', () => {
    expect(chosenLesson('bandit', 'turns-decide')).toBeNull();
    expect(choiceValue('bandit', 'turns-decide')).toBe('bandit');
    expect(choiceOptions(policy, 'guess', 'no-such')).toEqual({ candidates: 4, maxTurns: 4 });
    expect(parseChoice('bandit@turns-decide', 'guess')).toEqual({ family: 'bandit', lesson: null });
    expect(parseChoice('nope', 'guess')).toEqual({ family: 'guess', lesson: null });
  });

  it('plays a lesson from its start, and a forged choice from the shipped policy; an adapter adapts the base its checkpoint names', () => {
    expect(choiceStart('guess', 'turns-decide')).toBe(findLesson('turns-decide').start);
    expect(choiceStart('guess', null)).toBe('policy');
    expect(choiceStart('bandit', 'turns-decide')).toBe('policy');
    expect(adapterBase({ baseModel: 'student' })).toBe('student');
    // rows written before the student existed name 'policy' (checkpoints) or 'turnwise/policy' (an export)
    expect(adapterBase({ baseModel: 'policy' })).toBe('policy');
    expect(adapterBase({ baseModel: 'turnwise/policy' })).toBe('policy');
  });
});
