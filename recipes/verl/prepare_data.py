"""Turns Turnwise's veRL-shaped Parquet export (data/episodes.parquet from `turnwise export-model --data`
or `turnwise export --format parquet`) into veRL RL prompts for multi-turn GRPO/PPO with the
turnwise_guess interaction: one row per distinct `guess` task, the prompt (system = task prompt),
reward_model.ground_truth (the hidden information as JSON) and extra_info.interaction_kwargs.

    python recipes/verl/prepare_data.py --episodes EXPORT/data/episodes.parquet --out data/verl

writes data/verl/train.parquet and data/verl/test.parquet (by the episodes' split). Not executed here.
"""

import argparse
import json
import os

import pandas as pd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--family", default="guess", help="only this family has an interaction (turnwise_interaction.py)")
    args = ap.parse_args()
    df = pd.read_parquet(args.episodes)
    rows = {"train": [], "test": []}
    seen = set()
    for r in df.itertuples(index=False):
        info = r.extra_info
        if info["family"] != args.family:
            continue
        key = (info["split"], int(info["seed"]), r.reward_model["ground_truth"])
        if key in seen:
            continue
        seen.add(key)
        prompt = [{"role": m["role"], "content": m["content"]} for m in r.prompt]
        hidden = json.loads(r.reward_model["ground_truth"])
        rows[info["split"]].append({
            "data_source": r.data_source,
            "prompt": prompt,
            "ability": r.ability,
            "reward_model": {"style": "rule", "ground_truth": r.reward_model["ground_truth"]},
            "extra_info": {
                "split": info["split"],
                "index": len(rows[info["split"]]),
                "seed": int(info["seed"]),
                "interaction_kwargs": {"name": "turnwise_guess", "ground_truth": json.dumps(hidden)},
            },
        })
    os.makedirs(args.out, exist_ok=True)
    for split, items in rows.items():
        pd.DataFrame(items).to_parquet(os.path.join(args.out, f"{split}.parquet"))
        print(f"{split}: {len(items)} tasks")


if __name__ == "__main__":
    main()
