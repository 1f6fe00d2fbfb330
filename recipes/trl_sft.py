"""Continue supervised fine-tuning of a Turnwise export with TRL (SFTTrainer) on the lab's chat JSONL.

Each episode (data/episodes.chat.jsonl: {"messages": [...], "reward", "success", ...}) becomes one
conversational prompt-completion row per agent turn: prompt = the messages before it, completion =
that assistant message. TRL then computes the loss on the agent's tokens only, as the lab's trainer
does (the chat template has no {% generation %} markers, so assistant_only_loss is not used). Episodes
can be filtered by success (rejection fine-tuning) with --min-reward.

    python recipes/trl_sft.py --model EXPORT --data EXPORT/data/episodes.chat.jsonl --out runs/sft

Starts from EXPORT/adapter when present (PEFT, trainable), else from a fresh LoRA (r 8, α 16, all
projections). Saves a PEFT adapter folder in --out; bring it back with
`npx turnwise export-model --model EXPORT --adapter runs/sft --out EXPORT2`, or sample it with
`npx turnwise generate --adapter runs/sft --compare --prompt …`. Runs on the GPU when torch sees one,
else (or with --cpu) on the CPU in fp32. Written against requirements.txt (trl 1.9.0, transformers
4.56.2, peft 0.17.1); test/unit/cli/recipes.test.ts runs it for 2 steps where Python has them.
"""

import argparse

from datasets import Dataset
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

from common import LORA_TARGETS, add_device_args, default_adapter, device_settings, load_export, read_jsonl


def per_turn_rows(episodes, min_reward):
    rows = []
    for ep in episodes:
        if min_reward is not None and (ep.get("reward") is None or ep["reward"] < min_reward):
            continue
        msgs = [{"role": m["role"], "content": m["content"]} for m in ep["messages"]]
        for i, m in enumerate(msgs):
            if m["role"] == "assistant" and i > 0:
                rows.append({"prompt": msgs[:i], "completion": [m]})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="export folder (turnwise export-model --out)")
    ap.add_argument("--data", required=True, help="chat JSONL (turnwise export --format chat)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--adapter", default=None, help="PEFT adapter to continue (default: MODEL/adapter if present)")
    ap.add_argument("--min-reward", type=float, default=None, help="keep episodes with reward >= this")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=16)
    add_device_args(ap)
    args = ap.parse_args()

    adapter = args.adapter or default_adapter(args.model)
    tok, model = load_export(args.model, adapter, trainable=True)
    rows = per_turn_rows(read_jsonl(args.data), args.min_reward)
    print(f"{len(rows)} agent turns")
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
