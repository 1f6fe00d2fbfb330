// One ColBench (SWEET-RL) trajectory line as an object, for the import and format-detection tests.
export const colbench = (reward: unknown) => ({
  task: { problem_description: 'Double it.', ground_truth: 'def f(x): return 2*x' },
  dialogue_history: [
    { role: 'user', content: 'Double it.' },
    { role: 'assistant', content: 'I WANT TO ANSWER: def f(x): return x+x' },
  ],
  answer: ' def f(x): return x+x',
  reward,
});
