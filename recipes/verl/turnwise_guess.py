"""Turnwise's `guess` collaborator in plain Python (standard library only), as the lab runs it.

The rules are those of src/rl/envs/guess/env.ts and src/rl/envs/base.ts; the data (attribute table,
the collaborator's phrasings, the question keywords, the family defaults) is guess_table.json, which
scripts/guess-table.ts writes from that TypeScript. The collaborator words each answer as the lab's
does: it draws a phrasing ("Yes." / "Yes, that is right." / "Yes, it is.") from the environment's own
random stream, sfc32 seeded by FNV-1a of "guess/<split>/<seed>/env/<stream>" (src/rl/util/rng.ts,
ported below), one draw for the noise check and one for the phrasing per question. So a task replayed
with the lab's messages gets the lab's replies and rewards word for word;
test/unit/cli/recipesStdlib.test.ts replays the lab's episodes through check_interaction.py.

Rules:
  - the agent asks one yes/no question or guesses ("guess: cat"); a question is read by its canonical
    text or, failing that, by exactly one keyword; one it cannot read gets "I don't know." (or "I am
    not sure."); the answer then restates the remaining candidates and the turns left;
  - a guess ends the episode: "Correct! It is X." (score 1) or "Wrong. It was X." (score 0);
  - a message that is neither gets "Please ask a yes or no question or guess." and the status;
  - a message over 500 characters gets "Your message is too long (…)";
  - after max_turns agent messages: "No turns left. It was X." is appended and the episode ends.
Turn scores: -turn_cost per turn, -useless_cost more for a question that cannot split the remaining
candidates or was asked before, +1 for a correct guess; -0.1 for an unreadable or oversized message.
turnwise_interaction.py wraps this for veRL.
"""

import json
import math
import os
import re

_TABLE = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "guess_table.json"), encoding="utf-8"))
ATTRIBUTES = _TABLE["attributes"]  # [{key, question}]
FACTS = {item["name"]: item["facts"] for item in _TABLE["items"]}  # name -> [bool] * len(ATTRIBUTES)
REPLIES = _TABLE["replies"]  # {yes, no, unknown}: lists of phrasings
DEFAULTS = _TABLE["defaults"]  # {candidates, maxTurns, turnCost, uselessCost, noise}
KEY_INDEX = {a["key"]: i for i, a in enumerate(ATTRIBUTES)}
# JavaScript's \b is ASCII-only; re.ASCII makes Python's the same.
KEYWORDS = [(re.compile(source, re.ASCII), key) for source, key in _TABLE["keywords"]]
# Longest names first ("polar bear" before "bear"); sorted() is stable, as the lab's sort is.
NAMES_BY_LENGTH = sorted(FACTS, key=len, reverse=True)
_GUESS_NAME = {name: re.compile(r"(^|[^a-z])" + re.escape(name) + r"([^a-z]|$)") for name in NAMES_BY_LENGTH}
MAX_MESSAGE_CHARS = 500
FORMAT_PENALTY = -0.1
_M32 = 0xFFFFFFFF
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


# ---- src/rl/util/rng.ts: sfc32 seeded through splitmix32, 32-bit integer arithmetic ----------------

def _utf16_units(text):
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


def hash_string(text):
    """FNV-1a over UTF-16 code units (JavaScript's charCodeAt)."""
    h = 0x811C9DC5
    for unit in _utf16_units(text):
        h = ((h ^ unit) * 0x01000193) & _M32
    return h


class Rng:
    """The lab's deterministic random stream (src/rl/util/rng.ts), draw for draw."""

    def __init__(self, seed):
        s = hash_string(seed) if isinstance(seed, str) else seed & _M32

        def mix():
            nonlocal s
            s = (s + 0x9E3779B9) & _M32
            z = s
            z = ((z ^ (z >> 16)) * 0x85EBCA6B) & _M32
            z = ((z ^ (z >> 13)) * 0xC2B2AE35) & _M32
            return (z ^ (z >> 16)) & _M32

        self.a, self.b, self.c, self.d = mix(), mix(), mix(), mix()
        for _ in range(12):
            self.next_uint32()

    def next_uint32(self):
        t = (self.a + self.b + self.d) & _M32
        self.d = (self.d + 1) & _M32
        self.a = self.b ^ (self.b >> 9)
        self.b = (self.c + (self.c << 3)) & _M32
        self.c = ((self.c << 21) | (self.c >> 11)) & _M32
        self.c = (self.c + t) & _M32
        return t

    def next(self):
        return self.next_uint32() / 4294967296

    def int(self, n):
        return math.floor(self.next() * n)

    def chance(self, p):
        return self.next() < p

    def pick(self, items):
        return items[self.int(len(items))]


def choose_phrasing(rng, phrasings):
    """envs/phrasings.ts choosePhrasing: a list of one is returned without a draw."""
    return phrasings[0] if len(phrasings) == 1 else rng.pick(phrasings)


# ---- src/rl/envs/guess/env.ts ------------------------------------------------------------------

def parse_action(message):
    """("guess", name) | ("question", attribute index) | ("unknown-question", None) | ("invalid", None)."""
    text = re.sub(r"\s+", " ", message.lower()).strip()
    g = text.find("guess")
    if g >= 0:
        after = text[g + 5:]
        for name in NAMES_BY_LENGTH:
            if _GUESS_NAME[name].search(after):
                return "guess", name
        return "invalid", None
    for i, a in enumerate(ATTRIBUTES):
        if a["question"] in text:
            return "question", i
    hits = {key for pattern, key in KEYWORDS if pattern.search(text)}
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
    return 0.0 if p <= 0 or p >= 1 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


def js_length(text):
    """JavaScript's string length (UTF-16 code units), which the lab's message limit counts."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def task_options(options=None, prompt=None):
    """A task's options over the family defaults; without options, T is read from the prompt's
    "You have N turns." (Parquet exported before the options were)."""
    out = dict(DEFAULTS)
    if options:
        out.update({k: v for k, v in options.items() if k in out})
    elif prompt:
        m = re.search(r"You have (\d+) turns\.", prompt)
        if m:
            out["maxTurns"] = int(m.group(1))
    return out


class GuessCollaborator:
    """One episode of the `guess` task: the hidden item, the remaining candidates, the turn count."""

    def __init__(self, hidden, max_turns=None, turn_cost=None, useless_cost=None, noise=None, split="train", seed=0, stream=0):
        """hidden: the task's hidden information ({"item", "candidates", "facts"}, or its JSON text).
        split/seed/stream: the lab's task and environment stream, which fix the wording of answers."""
        hidden = json.loads(hidden) if isinstance(hidden, str) else hidden
        self.item = hidden["item"]
        self.remaining = list(hidden["candidates"])
        self.asked = set()
        self.turn = 0
        self.done = False
        self.success = False
        self.max_turns = int(DEFAULTS["maxTurns"] if max_turns is None else max_turns)
        self.turn_cost = float(DEFAULTS["turnCost"] if turn_cost is None else turn_cost)
        self.useless_cost = float(DEFAULTS["uselessCost"] if useless_cost is None else useless_cost)
        self.noise = float(DEFAULTS["noise"] if noise is None else noise)
        self.rng = Rng(f"guess/{split}/{int(seed)}/env/{int(stream)}")

    def _status(self):
        names = ", ".join(self.remaining) if self.remaining else "none"
        return f"Remaining: {names}. Turns left: {self.max_turns - self.turn}."

    def step(self, message):
        """The collaborator's reply to one agent message: (done, reply, score, info)."""
        if self.done:
            raise RuntimeError("the episode is over")
        self.turn += 1
        if js_length(message) > MAX_MESSAGE_CHARS:
            reason, done = "too-long", False
            reply, score = f"Your message is too long ({js_length(message)} characters; the limit is {MAX_MESSAGE_CHARS}).", FORMAT_PENALTY
        else:
            reason, done, reply, score = self._act(_CONTROL.sub(" ", message))
        if not done and self.turn >= self.max_turns:
            reply = f"{reply} No turns left. It was {self.item}.".strip()
            done, reason = True, "turn-limit"
        self.done = done
        return done, reply, score, {"reason": reason, "success": self.success, "turn": self.turn}

    def _act(self, message):
        cost = -self.turn_cost
        kind, value = parse_action(message)
        if kind == "invalid":
            return "invalid-format", False, f"Please ask a yes or no question or guess. {self._status()}", cost + FORMAT_PENALTY
        if kind == "guess":
            self.success = value == self.item
            text = f"Correct! It is {self.item}." if self.success else f"Wrong. It was {self.item}."
            return ("solved" if self.success else "failed"), True, text, (1 if self.success else 0) + cost
        attr = value if kind == "question" else -1
        reply, answer = self._simulated_reply(attr)
        gain = information_gain(self.remaining, attr) if attr >= 0 else 0.0
        repeated = attr >= 0 and attr in self.asked
        if attr >= 0:
            self.asked.add(attr)
            if answer != "unknown":
                self.remaining = [n for n in self.remaining if FACTS[n][attr] == (answer == "yes")]
        score = -self.turn_cost - (self.useless_cost if gain == 0 or repeated else 0)
        left = self.max_turns - self.turn
        return "question", False, (f"{reply} {self._status()}" if left > 0 else reply), score

    def _simulated_reply(self, attr):
        """env.ts simulatedReply with the canonical phrasings: (reply, "yes" | "no" | "unknown")."""
        r = self.rng
        if attr < 0:
            return choose_phrasing(r, REPLIES["unknown"]), "unknown"
        truth = FACTS[self.item][attr]
        if r.chance(self.noise):
            if r.chance(0.5):
                return choose_phrasing(r, REPLIES["unknown"]), "unknown"
            truth = not truth
        return choose_phrasing(r, REPLIES["yes"] if truth else REPLIES["no"]), ("yes" if truth else "no")


def replay(episode):
    """Replays one recorded episode ({split, seed, stream, options, hidden, turns: [{message, reply,
    reward, done}]}) and returns the turns where this collaborator differs from the record."""
    opts = task_options(episode.get("options"))
    c = GuessCollaborator(episode["hidden"], opts["maxTurns"], opts["turnCost"], opts["uselessCost"], opts["noise"],
                          episode["split"], episode["seed"], episode.get("stream", 0))
    differences = []
    for t, turn in enumerate(episode["turns"]):
        done, reply, score, _ = c.step(turn["message"])
        got = {"reply": reply, "reward": score, "done": done}
        want = {"reply": turn["reply"], "reward": turn["reward"], "done": turn["done"]}
        if got != want:
            differences.append({"turn": t + 1, "message": turn["message"], "lab": want, "python": got})
    return differences
