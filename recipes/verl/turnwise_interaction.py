"""Turnwise's `guess` collaborator re-stated as a veRL interaction (verl.interactions.base.BaseInteraction).

Twenty questions over the attribute table in guess_table.json (generated from
src/rl/envs/guess/table.ts; test/unit/bridge/recipes.test.ts fails if the two drift apart). The rules
are those of src/rl/envs/guess/env.ts with noise 0:
  - the agent asks one yes/no question or guesses ("guess: cat");
  - a question is read by its canonical text or, failing that, by exactly one keyword; the collaborator
    answers from the hidden item's facts ("Yes." / "No."), or "I don't know." for a question it cannot
    read, then restates the remaining candidates and the turns left;
  - a guess ends the episode: "Correct! It is X." (score 1) or "Wrong. It was X." (score 0);
  - a message that is neither gets "Please ask a yes or no question or guess." and the status;
  - after max_turns agent messages: "No turns left. It was X." (score 0).
Turn scores: -turn_cost per turn, -useless_cost more for a question that cannot split the remaining
candidates or was asked before, +1 for a correct guess; format penalty -0.1. veRL's final reward comes
from turnwise_reward.compute_score (success only), as in docs/design.md's calibration runs.

Not executed here (no Python ML stack in the Turnwise build machine); written against verl 0.5.0's
BaseInteraction (start_interaction / generate_response / calculate_score / finalize_interaction).
"""

import json
import math
import os
import re
from typing import Any, Optional
from uuid import uuid4

from verl.interactions.base import BaseInteraction

_TABLE = json.load(open(os.path.join(os.path.dirname(__file__), "guess_table.json")))
ATTRIBUTES = _TABLE["attributes"]  # [{key, question}]
FACTS = {item["name"]: item["facts"] for item in _TABLE["items"]}  # name -> [bool] * len(ATTRIBUTES)
NAMES_BY_LENGTH = sorted(FACTS, key=len, reverse=True)
KEYWORDS = [
    (r"\bmammals?\b", "mammal"), (r"\bbirds?\b", "bird"), (r"\bfish\b", "fish"), (r"\breptiles?\b", "reptile"),
    (r"\binsects?\b", "insect"), (r"\bfly\b|\bflies\b|\bflying\b", "fly"), (r"\bwater\b|\baquatic\b", "water"),
    (r"\bfur\b|\bfurry\b", "fur"), (r"\bmeat\b|\bcarnivor", "meat"), (r"\bbigger\b|\blarger\b", "big"),
    (r"\bsmaller\b", "small"), (r"\bkept\b|\bdomestic|\bpets?\b", "pet"), (r"\bnight\b|\bnocturnal\b", "night"),
    (r"\beggs?\b", "eggs"), (r"\bafrica", "africa"), (r"\bstripe|\bspots?\b|\bspotted\b", "pattern"),
    (r"\bfour legs\b|\b4 legs\b", "legs4"), (r"\bvenom|\bpoison", "venom"), (r"\bhorns?\b|\bantlers?\b", "horns"),
    (r"\bcold\b|\barctic\b", "cold"),
]
KEY_INDEX = {a["key"]: i for i, a in enumerate(ATTRIBUTES)}
MAX_MESSAGE_CHARS = 500
FORMAT_PENALTY = -0.1


def parse_action(message: str):
    """("guess", name) | ("question", attribute index) | ("unknown-question", None) | ("invalid", None)."""
    text = re.sub(r"\s+", " ", message.lower()).strip()
    g = text.find("guess")
    if g >= 0:
        after = text[g + 5:]
        for name in NAMES_BY_LENGTH:
            if re.search(r"(^|[^a-z])" + re.escape(name) + r"([^a-z]|$)", after):
                return "guess", name
        return "invalid", None
    for i, a in enumerate(ATTRIBUTES):
        if a["question"] in text:
            return "question", i
    hits = {key for pattern, key in KEYWORDS if re.search(pattern, text)}
    if len(hits) == 1:
        return "question", KEY_INDEX[hits.pop()]
    if "?" in text:
        return "unknown-question", None
    return "invalid", None


def information_gain(remaining, attr):
    n = len(remaining)
    if n == 0:
        return 0.0
    p = sum(1 for name in remaining if FACTS[name][attr]) / n
    return 0.0 if p in (0.0, 1.0) else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


class TurnwiseGuessInteraction(BaseInteraction):
    """One instance per rollout; state: hidden item, remaining candidates, questions asked, turn."""

    def __init__(self, config: dict):
        super().__init__(config)
        self.max_turns = int(config.get("max_turns", 5))
        self.turn_cost = float(config.get("turn_cost", 0.01))
        self.useless_cost = float(config.get("useless_cost", 0.05))
        self._instances: dict[str, dict[str, Any]] = {}

    async def start_interaction(self, instance_id: Optional[str] = None, ground_truth: Optional[str] = None, **kwargs) -> str:
        """ground_truth: the task's hidden information as JSON text ({"item", "candidates", "facts"})."""
        if instance_id is None:
            instance_id = str(uuid4())
        hidden = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
        self._instances[instance_id] = {
            "item": hidden["item"],
            "remaining": list(hidden["candidates"]),
            "asked": set(),
            "turn": 0,
            "max_turns": int(kwargs.get("max_turns", self.max_turns)),
            "success": False,
            "scores": [],
        }
        return instance_id

    def _status(self, s) -> str:
        left = s["max_turns"] - s["turn"]
        names = ", ".join(s["remaining"]) if s["remaining"] else "none"
        return f"Remaining: {names}. Turns left: {left}."

    async def generate_response(self, instance_id: str, messages: list[dict[str, Any]], **kwargs) -> tuple[bool, str, float, dict]:
        s = self._instances[instance_id]
        message = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        s["turn"] += 1
        done, reply, score = self._step(s, message)
        if not done and s["turn"] >= s["max_turns"]:
            reply = f"{reply} No turns left. It was {s['item']}.".strip()
            done = True
        s["scores"].append(score)
        return done, reply, score, {"success": s["success"], "turn": s["turn"]}

    def _step(self, s, message: str):
        cost = -self.turn_cost
        if len(message) > MAX_MESSAGE_CHARS:
            return False, f"Your message is too long ({len(message)} characters; the limit is {MAX_MESSAGE_CHARS}).", FORMAT_PENALTY
        kind, value = parse_action(message)
        if kind == "invalid":
            return False, f"Please ask a yes or no question or guess. {self._status(s)}", cost + FORMAT_PENALTY
        if kind == "guess":
            s["success"] = value == s["item"]
            text = f"Correct! It is {s['item']}." if s["success"] else f"Wrong. It was {s['item']}."
            return True, text, (1.0 if s["success"] else 0.0) + cost
        if kind == "unknown-question":
            reply, attr = "I don't know.", -1
        else:
            attr = value
            reply = "Yes." if FACTS[s["item"]][attr] else "No."
        gain = information_gain(s["remaining"], attr) if attr >= 0 else 0.0
        repeated = attr >= 0 and attr in s["asked"]
        if attr >= 0:
            s["asked"].add(attr)
            truth = FACTS[s["item"]][attr]
            s["remaining"] = [n for n in s["remaining"] if FACTS[n][attr] == truth]
        score = cost - (self.useless_cost if gain == 0 or repeated else 0.0)
        left = s["max_turns"] - s["turn"]
        return False, (f"{reply} {self._status(s)}" if left > 0 else reply), score

    async def calculate_score(self, instance_id: str, **kwargs) -> float:
        s = self._instances[instance_id]
        return 1.0 if s["success"] else 0.0

    async def finalize_interaction(self, instance_id: str, **kwargs) -> None:
        self._instances.pop(instance_id, None)
