"""DPO on the lab's preference pairs with TRL (DPOTrainer): episode-level pairs (multi-turn DPO,
data/episodes.dpo.jsonl) or per-turn pairs (SWEET-RL's turn-level DPO, data/episodes.turn-dpo.jsonl),
both in TRL's conversational preference format {"prompt", "chosen", "rejected"}.

    python recipes/trl_dpo.py --model EXPORT --pairs EXPORT/data/episodes.turn-dpo.jsonl --out runs/dpo

SWEET-RL's settings by default: β = 0.1 and a small NLL term on the chosen side, weight 0.01 (TRL's
loss_type ["sigmoid", "sft"] with loss_weights [1, 0.01]; TRL 1.x has no rpo_alpha). When
EXPORT/adapter exists it is loaded as PEFT's "default" adapter (trainable) and DPOTrainer copies it
into a frozen "ref" adapter, so the reference policy is the exported policy itself; the trained
adapter is saved to OUT. Without an adapter a fresh LoRA is trained and the base is the reference.
The pairs are rendered to text here with the export's chat template, the task prompt restored to
the system role the lab gives it (the export makes it a user message, marked system_prompt, because
TRL's own template step refuses a prompt that ends with a system message), so DPO trains on exactly
the token layout the lab samples from; --conversational hands TRL the messages instead.
Runs on the GPU when torch sees one, else (or with --cpu) on the CPU in fp32. Written against
requirements.txt (trl 1.9 to 1.13, transformers 4.56 to 5.x, peft 0.17 to 0.21); test/unit/cli/recipes.test.ts runs it
for 2 steps where Python has them.
"""

import argparse

from datasets import Dataset
from peft import LoraConfig
from trl import DPOConfig, DPOTrainer

from common import LORA_TARGETS, add_device_args, default_adapter, device_settings, load_export, read_jsonl


def lab_layout(pair, tok):
    """A pair as TRL's standard (text) preference row in the lab's layout: <|system|> task prompt."""
    prompt = [dict(m) for m in pair["prompt"]]
    if pair.get("system_prompt") and prompt:
        prompt[0]["role"] = "system"
    text = tok.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
    out = {"prompt": text}
    for side in ("chosen", "rejected"):
        full = tok.apply_chat_template(prompt + pair[side], tokenize=False)
        if not full.startswith(text):
            raise SystemExit(f"the chat template does not extend the prompt with the {side} side; use --conversational")
        out[side] = full[len(text):]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--pairs", required=True, help="turnwise export --format dpo | turn-dpo")
    ap.add_argument("--out", required=True)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--nll", type=float, default=0.01, help="weight of the NLL term on the chosen side (0: plain DPO)")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--conversational", action="store_true", help="give TRL the messages (its chat template step) instead of the lab's layout")
    add_device_args(ap)
    args = ap.parse_args()

    adapter = args.adapter or default_adapter(args.model)
    tok, model = load_export(args.model, adapter, trainable=True)
    pairs = read_jsonl(args.pairs)
    if args.conversational:
        rows = [{"prompt": p["prompt"], "chosen": p["chosen"], "rejected": p["rejected"]} for p in pairs]
    else:
        rows = [lab_layout(p, tok) for p in pairs]
    print(f"{len(rows)} pairs")
    if not rows:
        raise SystemExit(f"{args.pairs} holds no pairs: they need two finished episodes of one task with different returns")
    losses = {"loss_type": ["sigmoid", "sft"], "loss_weights": [1.0, args.nll]} if args.nll > 0 else {"loss_type": ["sigmoid"]}
    config = DPOConfig(
        output_dir=args.out,
        beta=args.beta,
        num_train_epochs=args.epochs,
        learning_rate=args.lr,
        per_device_train_batch_size=args.batch,
        max_length=tok.model_max_length,
        logging_steps=10,
        save_strategy="no",
        report_to="none",
        max_steps=args.max_steps,
        **losses,
        **device_settings(args.cpu),
    )
    trainer = DPOTrainer(
        model=model,
        ref_model=None,
        args=config,
        train_dataset=Dataset.from_list(rows),
        processing_class=tok,
        peft_config=None if adapter else LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=LORA_TARGETS, task_type="CAUSAL_LM"),
    )
    trainer.train()
    # Only the trained adapter: the frozen "ref" copy DPOTrainer added is the starting point, not a result.
    trainer.model.save_pretrained(args.out, selected_adapters=["default"])
    print(f"adapter saved in {args.out}")


if __name__ == "__main__":
    main()
