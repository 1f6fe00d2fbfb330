"""Turns Turnwise's veRL-shaped Parquet export (data/episodes.parquet from `turnwise export-model --data`
or `turnwise export --format parquet`) into veRL RL prompts for multi-turn GRPO/PPO with the
turnwise_guess interaction: one row per distinct `guess` task, the prompt (system = task prompt),
reward_model.ground_truth (the hidden information as JSON) and extra_info.interaction_kwargs: the
hidden information and the task's own options (max_turns, turn_cost, useless_cost, noise; from the
export's extra_info.options, or for Parquet exported before it carried them, T read from the prompt's
"You have N turns."), split and seed (which fix the collaborator's wording), so the interaction ends
and scores each episode as the prompt says and the lab would.

    python recipes/verl/prepare_data.py --episodes EXPORT/data/episodes.parquet --out data/verl

writes data/verl/train.parquet and data/verl/test.parquet (by the episodes' split), and sizes.json
({train, test, max_turns}), from which run_grpo.sh sizes its batches (batch_sizes.py). veRL validates on
test.parquet (run_grpo.sh data.val_files), and an empty one (0 rows, 0 columns) breaks its dataset, so
when no episode is test-split a --val-fraction of the train tasks (at least one) is held out instead,
and with fewer than two tasks it stops and says why. test/unit/cli/recipes.test.ts runs it where
Python has pandas and pyarrow; the row logic (`prepare`, standard library) is run by
test/unit/cli/recipesStdlib.test.ts on the lab's Parquet read in Node.
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from turnwise_guess import task_options  # noqa: E402


class PrepareError(Exception):
    """Why no veRL data can be made from the episodes."""


def prepare(episodes, family="guess", val_fraction=0.1):
    """veRL rows from the export's rows (dicts with data_source, prompt, ability, reward_model,
    extra_info): ({"train": [...], "test": [...]}, notes). Raises PrepareError with the reason."""
    rows = {"train": [], "test": []}
    notes = []
    seen = set()
    for r in episodes:
        info = r["extra_info"]
        if info["family"] != family:
            continue
        options_text = info.get("options")  # JSON text; absent in Parquet exported before issue 48
        key = (info["split"], int(info["seed"]), options_text, r["reward_model"]["ground_truth"])
        if key in seen:
            continue
        seen.add(key)
        prompt = [{"role": m["role"], "content": m["content"]} for m in r["prompt"]]
        hidden = json.loads(r["reward_model"]["ground_truth"])
        system = next((m["content"] for m in prompt if m["role"] == "system"), prompt[0]["content"] if prompt else "")
        opts = task_options(json.loads(options_text) if options_text else None, system)
        rows[info["split"]].append({
            "data_source": r["data_source"],
            "prompt": prompt,
            "ability": r["ability"],
            "reward_model": {"style": "rule", "ground_truth": r["reward_model"]["ground_truth"]},
            "extra_info": {
                "split": info["split"],
                "index": len(rows[info["split"]]),
                "seed": int(info["seed"]),
                "interaction_kwargs": {
                    "name": "turnwise_guess",
                    "ground_truth": json.dumps(hidden),
                    "max_turns": int(opts["maxTurns"]),
                    "turn_cost": float(opts["turnCost"]),
                    "useless_cost": float(opts["uselessCost"]),
                    "noise": float(opts["noise"]),
                    "split": info["split"],
                    "seed": int(info["seed"]),
                },
            },
        })
    if not rows["train"] and not rows["test"]:
        raise PrepareError(f"no {family} episodes (prepare_data keeps only --family {family}, the family with a veRL interaction)")
    if not rows["test"]:
        if len(rows["train"]) < 2:
            raise PrepareError(f"one {family} task and no test-split episodes: nothing to validate on; "
                               "play held-out tasks too (turnwise eval --split test --out …) or more train tasks")
        held = max(1, math.floor(len(rows["train"]) * val_fraction))
        rows["test"] = rows["train"][-held:]
        rows["train"] = rows["train"][:-held]
        for split in ("train", "test"):
            for i, r in enumerate(rows[split]):
                r["extra_info"]["index"] = i
        notes.append(f"no test-split episodes: holding out {held} of the train tasks for validation (--val-fraction {val_fraction})")
    return rows, notes


def sizes(rows):
    """sizes.json: the task counts and the longest T, which run_grpo.sh sizes its batches from."""
    max_turns = max(r["extra_info"]["interaction_kwargs"]["max_turns"] for items in rows.values() for r in items)
    return {"train": len(rows["train"]), "test": len(rows["test"]), "max_turns": max_turns}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--family", default="guess", help="only this family has an interaction (turnwise_interaction.py)")
    ap.add_argument("--val-fraction", type=float, default=0.1, help="train tasks held out for validation when no episode is test-split")
    args = ap.parse_args()
    import pandas as pd

    try:
        rows, notes = prepare(pd.read_parquet(args.episodes).to_dict("records"), args.family, args.val_fraction)
    except PrepareError as e:
        sys.exit(f"{args.episodes}: {e}")
    for note in notes:
        print(note)
    os.makedirs(args.out, exist_ok=True)
    for split, items in rows.items():
        pd.DataFrame(items).to_parquet(os.path.join(args.out, f"{split}.parquet"))
        print(f"{split}: {len(items)} tasks")
    size = sizes(rows)
    with open(os.path.join(args.out, "sizes.json"), "w", encoding="utf-8") as f:
        json.dump(size, f)
    print(f"sizes.json: run_grpo.sh's train batch will be min(BATCH=64, {size['train']}) prompts; T up to {size['max_turns']}")


if __name__ == "__main__":
    main()
