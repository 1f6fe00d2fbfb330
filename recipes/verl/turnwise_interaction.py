"""Turnwise's `guess` collaborator as a veRL interaction (verl.interactions.base.BaseInteraction).

The collaborator itself is turnwise_guess.py (standard library, the lab's rules, wording and random
stream; test/unit/cli/recipesStdlib.test.ts replays the lab's episodes through it). Each task's
options come with the prompt: prepare_data.py writes extra_info.interaction_kwargs = {name,
ground_truth, max_turns, turn_cost, useless_cost, noise, split, seed}, and veRL passes them to
start_interaction, so a task whose prompt says "You have 4 turns" ends after 4 agent messages with
"Turns left: 3" after the first. interaction_config.yaml's values are the defaults for rows without them.
veRL's final reward comes from turnwise_reward.compute_score (success only), as in docs/design.md's
calibration runs; generate_response returns the lab's per-turn score beside each reply.

Not executed here (no veRL on the Turnwise build machines); written against verl 0.5.0's
BaseInteraction (start_interaction / generate_response / calculate_score / finalize_interaction).
"""

import os
import sys
from typing import Any, Optional
from uuid import uuid4

from verl.interactions.base import BaseInteraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from turnwise_guess import DEFAULTS, GuessCollaborator  # noqa: E402


class TurnwiseGuessInteraction(BaseInteraction):
    """One GuessCollaborator per rollout (instance_id)."""

    def __init__(self, config: dict):
        super().__init__(config)
        self.defaults = {
            "max_turns": int(config.get("max_turns", DEFAULTS["maxTurns"])),
            "turn_cost": float(config.get("turn_cost", DEFAULTS["turnCost"])),
            "useless_cost": float(config.get("useless_cost", DEFAULTS["uselessCost"])),
            "noise": float(config.get("noise", DEFAULTS["noise"])),
        }
        self._instances: dict[str, GuessCollaborator] = {}

    async def start_interaction(self, instance_id: Optional[str] = None, ground_truth: Optional[str] = None, **kwargs) -> str:
        """ground_truth: the task's hidden information as JSON text ({"item", "candidates", "facts"});
        kwargs: the task's max_turns, turn_cost, useless_cost, noise, split, seed (and stream, default 0)."""
        if instance_id is None:
            instance_id = str(uuid4())
        opts = {k: kwargs.get(k, v) for k, v in self.defaults.items()}
        self._instances[instance_id] = GuessCollaborator(
            ground_truth, opts["max_turns"], opts["turn_cost"], opts["useless_cost"], opts["noise"],
            kwargs.get("split", "train"), kwargs.get("seed", 0), kwargs.get("stream", 0),
        )
        return instance_id

    async def generate_response(self, instance_id: str, messages: list[dict[str, Any]], **kwargs) -> tuple[bool, str, float, dict]:
        c = self._instances[instance_id]
        message = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        return c.step(message)

    async def calculate_score(self, instance_id: str, **kwargs) -> float:
        return 1.0 if self._instances[instance_id].success else 0.0

    async def finalize_interaction(self, instance_id: str, **kwargs) -> None:
        self._instances.pop(instance_id, None)
