"""veRL batch sizes that fit the prepared data, for run_grpo.sh (standard library only).

veRL's train loader drops the last incomplete batch, so a data.train_batch_size above the number of
train tasks yields no batch at all ("Train dataloader is empty!"): the README's sizes give 18 train
tasks against run_grpo.sh's former fixed 64. This picks, from prepare_data.py's sizes.json:
  - data.train_batch_size = min(asked, train tasks), lowered until train_batch_size * n divides among
    the GPUs (veRL asserts it);
  - actor.ppo_mini_batch_size = the same (one update per batch, as before);
  - actor.ppo_micro_batch_size_per_gpu = the largest divisor of the per-GPU mini-batch
    (mini * n / GPUs, which veRL requires it to divide) that is at most the asked micro-batch;
  - multi_turn.max_assistant_turns / max_user_turns = the longest task's T (the interaction ends
    each episode at its own T).
It prints them as shell assignments, or exits 1 with the reason.

    python3 recipes/verl/batch_sizes.py --data data/verl --gpus 1 --n 8 --batch 64 --micro 16
"""

import argparse
import json
import math
import os
import sys


def fit(train_rows, gpus, n, batch, micro):
    """{"train_batch", "mini_batch", "micro_batch"} or raises ValueError with the reason."""
    if train_rows < 1:
        raise ValueError("the train split has no tasks: prepare_data.py found none (play more guess tasks)")
    need = math.ceil(gpus / n)  # at least one sequence per GPU: train_batch * n >= gpus
    size = min(batch, train_rows)
    while size >= need and (size * n) % gpus:
        size -= 1
    if size < need or size < 1:
        raise ValueError(f"{train_rows} train tasks cannot fill one batch for {gpus} GPUs with n={n} "
                         f"(train_batch_size * n must be a multiple of the GPU count and at least it): "
                         f"use fewer GPUs or more tasks")
    per_gpu = size * n // gpus
    micro = max(d for d in range(1, min(micro, per_gpu) + 1) if per_gpu % d == 0)
    return {"train_batch": size, "mini_batch": size, "micro_batch": micro}


def read_sizes(data):
    path = os.path.join(data, "sizes.json")
    if not os.path.exists(path):
        raise ValueError(f"{path} is missing: run recipes/verl/prepare_data.py --out {data} (this version writes it)")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="prepare_data.py's --out folder")
    ap.add_argument("--gpus", type=int, default=1, help="GPUs in all (n_gpus_per_node * nnodes)")
    ap.add_argument("--n", type=int, default=8, help="rollouts per prompt (actor_rollout_ref.rollout.n)")
    ap.add_argument("--batch", type=int, default=64, help="the train batch size wanted (prompts)")
    ap.add_argument("--micro", type=int, default=16, help="the micro-batch size per GPU wanted")
    args = ap.parse_args()
    try:
        sizes = read_sizes(args.data)
        f = fit(int(sizes["train"]), args.gpus, args.n, args.batch, args.micro)
    except ValueError as e:
        sys.exit(f"run_grpo.sh: {e}")
    turns = int(sizes.get("max_turns") or 5)
    print(f"TRAIN_BATCH={f['train_batch']} MINI_BATCH={f['mini_batch']} MICRO_BATCH={f['micro_batch']} MAX_TURNS={turns}")
    note = f" (asked {args.batch})" if f["train_batch"] != args.batch else ""
    print(f"{sizes['train']} train tasks, {sizes.get('test', '?')} validation: data.train_batch_size {f['train_batch']}{note}, "
          f"ppo_mini_batch_size {f['mini_batch']}, ppo_micro_batch_size_per_gpu {f['micro_batch']}, "
          f"max turns {turns}", file=sys.stderr)


if __name__ == "__main__":
    main()
