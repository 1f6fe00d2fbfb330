"""Checks an export folder in transformers (+ PEFT) against the lab's own numbers (turnwise_check.json):
the chat template's text, the token ids, the last-position logits and every next-token log-prob,
without and with the adapter. Exit code 0 when all agree within the file's tolerance.

    python recipes/check_export.py --model EXPORT

The numbers in turnwise_check.json come from Turnwise's float64 reference forward over exactly the
weights in model.safetensors (rounded to float32). test/unit/cli/recipes.test.ts runs it where Python
has the packages of requirements.txt."""

import argparse
import json
import os
import sys

import torch

from common import default_adapter, load_export


def compare(name, model, ids, ref, tol):
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double()
    last = logits[-1]
    lp = torch.log_softmax(logits, dim=-1)
    token_lp = lp[torch.arange(len(ids) - 1), torch.tensor(ids[1:])]
    d_last = (last - torch.tensor(ref["last_logits"], dtype=torch.float64)).abs().max().item()
    d_lp = (token_lp - torch.tensor(ref["token_logprobs"], dtype=torch.float64)).abs().max().item()
    ok = d_last <= tol and d_lp <= tol
    print(f"{name}: max |Δ last logits| {d_last:.2e}, max |Δ token log-probs| {d_lp:.2e} -> {'ok' if ok else 'MISMATCH'}")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    args = ap.parse_args()
    check = json.load(open(os.path.join(args.model, "turnwise_check.json")))
    tol = check["tolerance"]
    tok, model = load_export(args.model)
    model.eval()
    text = tok.apply_chat_template(check["messages"], add_generation_prompt=True, tokenize=False)
    ok = text == check["text"]
    print(f"chat template text: {'ok' if ok else 'MISMATCH'}")
    ids = tok(text, add_special_tokens=False).input_ids[: len(check["input_ids"])]
    ids_ok = ids == check["input_ids"]
    print(f"token ids: {'ok' if ids_ok else 'MISMATCH'}")
    ok = ok and ids_ok
    ids = check["input_ids"]
    ok = compare("base", model, ids, check["base"], tol) and ok
    adapter = default_adapter(args.model)
    if adapter and "adapter" in check:
        from peft import PeftModel

        peft_model = PeftModel.from_pretrained(model, adapter)
        peft_model.eval()
        ok = compare("base + adapter", peft_model, ids, check["adapter"], tol) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
