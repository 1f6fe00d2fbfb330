// Play's sentence when the critic cannot score a turn (pure, tested in Node).
/**
 * Why the critic could not score a turn, in plain words. The usual cause is length: the critic keeps
 * the task's prompt and hidden information whole (SWEET-RL's asymmetric critic must see them), and a
 * frontend task's hidden page with a drafted page can outgrow its context; the engine's message
 * ("score item 0 has 536 tokens; …") is for the CLI, not for the chat (issue 49).
 */
export function criticFailure(e: Pick<Error, 'name' | 'message'>): string {
  if (e.name === 'PromptTooLongError')
    return "The critic cannot read this turn: the task's prompt and hidden information with the dialogue so far are longer than its context. Credit that needs the critic is left out from here on; Monte-Carlo return needs no critic.";
  return `Credit that needs the critic is unavailable: ${e.message}`;
}
