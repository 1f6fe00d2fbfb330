"""Replays the lab's own `guess` episodes through the Python collaborator (turnwise_guess.py, which
turnwise_interaction.py serves to veRL) and counts the replies, rewards and ends that agree.

    python recipes/verl/check_interaction.py EPISODES.json

EPISODES.json: {"episodes": [{"split", "seed", "stream", "options", "hidden", "turns": [{"message",
"reply", "reward", "done"}]}]} (test/unit/cli/recipesStdlib.test.ts writes one from the lab's
environment and runs this on it). Standard library only. Exit code 0 when every turn agrees."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from turnwise_guess import replay  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    episodes = json.load(open(sys.argv[1], encoding="utf-8"))["episodes"]
    turns = sum(len(e["turns"]) for e in episodes)
    differences = []
    for i, e in enumerate(episodes):
        differences += [{"episode": i, **d} for d in replay(e)]
    print(f"{turns - len(differences)} of {turns} turns agree over {len(episodes)} episodes")
    for d in differences[:10]:
        print(json.dumps(d))
    sys.exit(0 if not differences else 1)


if __name__ == "__main__":
    main()
