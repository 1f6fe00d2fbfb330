// How long the lab keeps what a person deleted (issue #49): Undo is offered in the tab that deleted
// episodes, and a training run's thousands of rollouts, once deleted, should free their space.

/** Deleted episodes older than this are removed for good when the lab next opens its store. */
export const PURGE_AFTER_MS = 60 * 60 * 1000;
