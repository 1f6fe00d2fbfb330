"""Loads every trajectory export the way the Python stacks read it, and fails loudly where one cannot:
`datasets.load_dataset("json" | "parquet", …)` (pyarrow's readers, one Arrow schema per file),
pyarrow's JSON reader directly, pandas, and for the preference files TRL's maybe_apply_chat_template
with the export's tokenizer (which refuses a prompt ending in a system message).

    python recipes/check_datasets.py EXPORT/data/*.jsonl EXPORT/data/*.parquet [--model EXPORT]

Exit code 0 when every file loads everywhere. test/unit/cli/recipes.test.ts runs it where Python has
datasets (and, for the chat-template check, trl)."""

import argparse
import json
import sys


def check(path, tokenizer):
    import pandas as pd
    import pyarrow.json as paj
    from datasets import load_dataset

    problems = []
    kind = "parquet" if path.endswith(".parquet") else "json"
    ds = load_dataset(kind, data_files=path, split="train")
    rows = len(ds)
    if kind == "json":
        table = paj.read_json(path)
        if table.num_rows != rows:
            problems.append(f"pyarrow read {table.num_rows} rows, datasets {rows}")
        df = pd.read_json(path, lines=True)
        if len(df) != rows:
            problems.append(f"pandas read {len(df)} rows, datasets {rows}")
    else:
        df = pd.read_parquet(path)
        if len(df) != rows:
            problems.append(f"pandas read {len(df)} rows, datasets {rows}")
    if "chosen" in ds.column_names:
        for i, r in enumerate(ds):
            if r["prompt"] and r["prompt"][-1]["role"] not in ("user", "assistant", "tool"):
                problems.append(f"row {i}: the prompt ends with a {r['prompt'][-1]['role']} message")
                break
        if tokenizer is not None and rows:
            from trl.data_utils import maybe_apply_chat_template

            maybe_apply_chat_template({k: ds[0][k] for k in ("prompt", "chosen", "rejected")}, tokenizer)
    if "hidden" in ds.column_names and rows and isinstance(ds[0]["hidden"], str):
        json.loads(ds[0]["hidden"])
    return rows, ds.column_names, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--model", default=None, help="export folder whose tokenizer renders the preference prompts")
    args = ap.parse_args()
    tokenizer = None
    if args.model:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.model)
    ok = True
    for path in args.files:
        try:
            rows, columns, problems = check(path, tokenizer)
        except Exception as e:  # any loader's refusal is the finding
            ok = False
            print(f"{path}: FAILED {type(e).__name__}: {e}")
            continue
        ok = ok and not problems
        print(f"{path}: {rows} rows, columns {', '.join(columns)}{' — ' + '; '.join(problems) if problems else ' — ok'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
