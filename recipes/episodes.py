"""The lab's chat JSONL (turnwise export --format chat, EXPORT/data/episodes.chat.jsonl) read with the
Python standard library only: which episodes a recipe keeps (rejection fine-tuning) and their agent
turns as TRL prompt-completion rows. No torch here, so `trl_sft.py --count` and the Node tests
(test/unit/cli/recipesNode.test.ts) run it without the training packages.

Why success and not a reward threshold: an episode's reward is the sum of its turn rewards, and most
families charge every turn (guess: -0.01 a turn, -0.05 more for a useless question), so a solved
guess episode earns at most 1 - 0.01 = 0.99 and `--min-reward 1` keeps nothing."""

import json


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def keep_episode(ep, success_only=False, min_reward=None):
    """Whether an episode passes the filters: success is the outcome's flag (null: unfinished, dropped)."""
    if success_only and ep.get("success") is not True:
        return False
    if min_reward is not None and (ep.get("reward") is None or ep["reward"] < min_reward):
        return False
    return True


def per_turn_rows(episodes):
    """One {"prompt": messages before it, "completion": [agent message]} row per agent turn."""
    rows = []
    for ep in episodes:
        msgs = [{"role": m["role"], "content": m["content"]} for m in ep["messages"]]
        for i, m in enumerate(msgs):
            if m["role"] == "assistant" and i > 0:
                rows.append({"prompt": msgs[:i], "completion": [m]})
    return rows


def describe_filters(success_only=False, min_reward=None):
    parts = (["success"] if success_only else []) + ([f"reward >= {min_reward:g}"] if min_reward is not None else [])
    return " and ".join(parts) or "none"


def select(episodes, success_only=False, min_reward=None):
    """(kept episodes, a one-line summary, a reason when nothing is left or None)."""
    kept = [ep for ep in episodes if keep_episode(ep, success_only, min_reward)]
    rewards = [ep["reward"] for ep in episodes if isinstance(ep.get("reward"), (int, float))]
    summary = f"kept {len(kept)} of {len(episodes)} episodes (filters: {describe_filters(success_only, min_reward)})"
    if rewards:
        summary += f"; episode rewards range {min(rewards):.4g} .. {max(rewards):.4g}"
    reason = None
    if not episodes:
        reason = "the file holds no episodes"
    elif not kept:
        reason = "no episode passes the filters"
        if min_reward is not None and rewards and max(rewards) < min_reward:
            reason += (f": the best reward is {max(rewards):.4g} < --min-reward {min_reward:g} (turn costs keep a solved"
                       " episode's reward below 1); use --success-only to keep the solved episodes, or a lower --min-reward")
    elif not per_turn_rows(kept):
        reason = "the kept episodes have no agent turns"
    return kept, summary, reason
