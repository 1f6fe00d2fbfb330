"""veRL custom reward function for Turnwise `guess` rollouts (custom_reward_function.path/name).

veRL decodes the whole multi-turn response (agent turns and the interaction's replies) and calls
compute_score(data_source, solution_str, ground_truth, extra_info). The interaction
(turnwise_interaction.py) answers a correct guess with "Correct! It is <item>.", so success is read
from that reply; the reward is success only (1/0), as in docs/design.md's calibration runs. Not executed here.
"""

import json


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    hidden = json.loads(ground_truth) if isinstance(ground_truth, str) else ground_truth
    return 1.0 if f"Correct! It is {hidden['item']}." in solution_str else 0.0
