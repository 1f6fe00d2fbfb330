// What the two ColBench families (SWEET-RL, arXiv 2503.15478) share: the agent ends its questions
// with an answer after this marker (backend: code; frontend: HTML).

/** The prefix of the agent's final answer in backend and frontend. */
export const ANSWER_MARKER = 'I WANT TO ANSWER:';
