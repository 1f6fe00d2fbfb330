"""Continue supervised fine-tuning of a Turnwise export with TRL (SFTTrainer) on the lab's chat JSONL.

Each episode (data/episodes.chat.jsonl: {"messages": [...], "reward", "success", ...}) becomes one
conversational prompt-completion row per agent turn: prompt = the messages before it, completion =
that assistant message. TRL then computes the loss on the agent's tokens only, as the lab's trainer
does (the chat template has no {% generation %} markers, so assistant_only_loss is not used). Episodes
can be filtered (rejection fine-tuning): --success-only keeps the solved episodes, --min-reward R those
whose reward is at least R (an episode's reward is below 1 even when solved, where a family charges
each turn: guess's best is 0.99). The script says how many episodes the filters kept, and stops with
the reason when they keep none; --count prints that and exits without loading torch.

    python recipes/trl_sft.py --model EXPORT --data EXPORT/data/episodes.chat.jsonl --out runs/sft

Starts from EXPORT/adapter when present (PEFT, trainable), else from a fresh LoRA (r 8, α 16, all
projections). Saves a PEFT adapter folder in --out; bring it back with
`npx turnwise export-model --model EXPORT --adapter runs/sft --out EXPORT2`, or sample it with
`npx turnwise generate --adapter runs/sft --compare --prompt …`. Runs on the GPU when torch sees one,
else (or with --cpu) on the CPU in fp32. Written against requirements.txt (trl 1.9 to 1.13, transformers
4.56 to 5.x, peft 0.17 to 0.21); test/unit/cli/recipes.test.ts runs it for 2 steps where Python has them,
and test/unit/cli/recipesNode.test.ts runs the README's filter on the lab's episodes with --count.
"""

import argparse
import sys

from common import add_device_args
from episodes import per_turn_rows, read_jsonl, select


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="export folder (turnwise export-model --out)")
    ap.add_argument("--data", required=True, help="chat JSONL (turnwise export --format chat)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--adapter", default=None, help="PEFT adapter to continue (default: MODEL/adapter if present)")
    ap.add_argument("--success-only", action="store_true", help="keep the solved episodes only (rejection fine-tuning)")
    ap.add_argument("--min-reward", type=float, default=None, help="keep episodes with reward >= this (a solved guess episode earns at most 0.99)")
    ap.add_argument("--count", action="store_true", help="print how many episodes and agent turns the filters keep, and exit")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=16)
    add_device_args(ap)
    args = ap.parse_args()

    # Select before importing torch: an empty selection stops here, with the reason (SFTTrainer would
    # die on an empty dataset with a bare StopIteration).
    kept, summary, reason = select(read_jsonl(args.data), args.success_only, args.min_reward)
    rows = per_turn_rows(kept)
    print(f"{args.data}: {summary}; {len(rows)} agent turns")
    if reason:
        sys.exit(f"trl_sft.py: nothing to train on: {reason}")
    if args.count:
        return

    from datasets import Dataset
    from peft import LoraConfig
    from trl import SFTConfig, SFTTrainer

    from common import LORA_TARGETS, default_adapter, device_settings, load_export

    adapter = args.adapter or default_adapter(args.model)
    tok, model = load_export(args.model, adapter, trainable=True)
    config = SFTConfig(
        output_dir=args.out,
        num_train_epochs=args.epochs,
        learning_rate=args.lr,
        per_device_train_batch_size=args.batch,
        max_length=tok.model_max_length,  # the model's context window (config.json max_position_embeddings)
        completion_only_loss=True,
        logging_steps=10,
        save_strategy="no",
        report_to="none",
        max_steps=args.max_steps,
        **device_settings(args.cpu),
    )
    trainer = SFTTrainer(
        model=model,
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tok,
        peft_config=None if adapter else LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=LORA_TARGETS, task_type="CAUSAL_LM"),
    )
    trainer.train()
    trainer.save_model(args.out)  # adapter_model.safetensors + adapter_config.json
    print(f"adapter saved in {args.out}")


if __name__ == "__main__":
    main()
