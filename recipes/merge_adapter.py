"""Merges an export's PEFT adapter into its base (W + (α/r)·B·A) and writes a plain Hugging Face folder
with the tokenizer, for engines that start from full weights (veRL's LoRA trainer, vLLM/SGLang).

    python recipes/merge_adapter.py --model EXPORT [--adapter EXPORT/adapter] --out merged/

Written against requirements.txt (peft 0.17 to 0.21, transformers 4.56 to 5.x)."""

import argparse

from common import default_adapter, load_export


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--adapter", default=None)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    adapter = args.adapter or default_adapter(args.model)
    tok, model = load_export(args.model, adapter)
    if adapter:
        model = model.merge_and_unload()
    model.save_pretrained(args.out, safe_serialization=True)
    tok.save_pretrained(args.out)
    print(f"merged model in {args.out}")


if __name__ == "__main__":
    main()
