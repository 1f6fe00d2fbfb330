"""DPO on the lab's preference pairs with TRL (DPOTrainer): episode-level pairs (multi-turn DPO,
data/episodes.dpo.jsonl) or per-turn pairs (SWEET-RL's turn-level DPO, data/episodes.turn-dpo.jsonl),
both in TRL's conversational preference format {"prompt", "chosen", "rejected"}.

    python recipes/trl_dpo.py --model EXPORT --pairs EXPORT/data/episodes.turn-dpo.jsonl --out runs/dpo

SWEET-RL's settings by default: β = 0.1 and a small NLL term on the chosen side (TRL's rpo_alpha,
0.01). When EXPORT/adapter exists it is loaded twice, as "train" (trainable) and "reference" (frozen,
TRL's ref_adapter_name), so the reference policy is the exported policy itself; the trained adapter is
saved to OUT/train. Without an adapter a fresh LoRA is trained and the base is the reference.
Written against trl 0.19.1 / transformers 4.53.2 / peft 0.16.0; not executed in the Turnwise repo.
"""

import argparse
import os

from datasets import Dataset
from peft import LoraConfig
from trl import DPOConfig, DPOTrainer

from common import LORA_TARGETS, default_adapter, load_export, read_jsonl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--pairs", required=True, help="turnwise export --format dpo | turn-dpo")
    ap.add_argument("--out", required=True)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--beta", type=float, default=0.1)
    ap.add_argument("--nll", type=float, default=0.01, help="rpo_alpha: weight of the NLL term on chosen")
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=8)
    args = ap.parse_args()

    adapter = args.adapter or default_adapter(args.model)
    tok, model = load_export(args.model, adapter, trainable=True, adapter_name="train")
    if adapter:
        model.load_adapter(adapter, adapter_name="reference")
    rows = [{"prompt": p["prompt"], "chosen": p["chosen"], "rejected": p["rejected"]} for p in read_jsonl(args.pairs)]
    print(f"{len(rows)} pairs")
    config = DPOConfig(
        output_dir=args.out,
        beta=args.beta,
        rpo_alpha=args.nll,
        num_train_epochs=args.epochs,
        learning_rate=args.lr,
        per_device_train_batch_size=args.batch,
        max_length=tok.model_max_length,
        logging_steps=10,
        save_strategy="no",
        report_to="none",
        **({"model_adapter_name": "train", "ref_adapter_name": "reference"} if adapter else {}),
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
    if adapter:
        model.save_pretrained(args.out, selected_adapters=["train"])  # non-default names go to OUT/<name>
        print(f"adapter saved in {os.path.join(args.out, 'train')}")
    else:
        trainer.save_model(args.out)
        print(f"adapter saved in {args.out}")


if __name__ == "__main__":
    main()
