"""Loads a Turnwise critic export (turnwise export-model --model public/models/critic --out EXPORT)
with its value head, which plain AutoModelForCausalLM reports as UNEXPECTED keys and drops.

The head is TRL's layout (`v_head.summary.weight` [1, d], `v_head.summary.bias` [1]) applied to the
final-norm hidden state at every position, exactly as the lab computes V: the value of a dialogue
state is the head at the last token of the critic's window (docs/rollouts.md "Critic inputs").

    from critic_value import load_critic, state_ids, values
    tok, model, head = load_critic("EXPORT")
    ids = state_ids(tok, messages)             # [1, seq]
    v = values(model, head, ids)[0, -1]        # V(s) of the state after `messages`

    python recipes/critic_value.py --model EXPORT   # checks the head against turnwise_check.json

Written against requirements.txt (transformers 4.56 to 5.x, safetensors from its dependencies).
transformers 5's apply_chat_template(..., return_tensors="pt") returns a BatchEncoding (4.x: a tensor),
so state_ids goes through the template's text, as check_export.py does, which gives the same ids on
both."""

import argparse
import json
import os
import sys

import torch
from safetensors.torch import load_file

from common import load_export

HEAD_KEYS = ("v_head.summary.weight", "v_head.summary.bias")


def load_value_head(model_dir):
    """The value head of an export as a torch Linear(d, 1), float32."""
    tensors = load_file(os.path.join(model_dir, "model.safetensors"))
    missing = [k for k in HEAD_KEYS if k not in tensors]
    if missing:
        raise SystemExit(f"{model_dir}/model.safetensors has no value head ({', '.join(missing)} missing): is it the critic's export?")
    w, b = tensors[HEAD_KEYS[0]].float(), tensors[HEAD_KEYS[1]].float()
    head = torch.nn.Linear(w.shape[1], 1)
    with torch.no_grad():
        head.weight.copy_(w)
        head.bias.copy_(b)
    return head


def load_critic(model_dir, adapter=None):
    tok, model = load_export(model_dir, adapter)
    model.eval()
    return tok, model, load_value_head(model_dir)


def state_ids(tok, messages):
    """Token ids [1, seq] of the dialogue state after `messages`, as the lab's critic reads it: the chat
    template's text with the generation prompt, tokenized without adding special tokens (the template
    writes them). The same ids on transformers 4.x and 5 (whose apply_chat_template returns a
    BatchEncoding where 4.x returned a tensor)."""
    text = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return tok(text, add_special_tokens=False, return_tensors="pt").input_ids


def values(model, head, input_ids):
    """V at every position, [batch, seq]: the head on the final-norm hidden state.

    Read from the decoder's last_hidden_state (LlamaModel applies model.norm to it), not from
    output_hidden_states, whose last entry is not the normed state in every transformers version."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model  # PEFT: LoRA stays applied
    with torch.no_grad():
        h = base.model(input_ids=input_ids).last_hidden_state
        return head(h.float()).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True, help="critic export folder")
    args = ap.parse_args()
    tok, model, head = load_critic(args.model)
    check = json.load(open(os.path.join(args.model, "turnwise_check.json")))
    ref = check["base"].get("values")
    if ref is None:
        sys.exit("turnwise_check.json has no values: re-export the critic with this version of turnwise export-model")
    # the README's path from messages to ids gives the lab's ids (the window may cut the rendered text)
    ids = state_ids(tok, check["messages"])[0].tolist()[: len(check["input_ids"])]
    ids_ok = ids == check["input_ids"]
    print(f"state_ids: {'ok' if ids_ok else 'MISMATCH'}")
    v = values(model, head, torch.tensor([check["input_ids"]]))[0].double()
    d = (v - torch.tensor(ref, dtype=torch.float64)).abs().max().item()
    ok = d <= check["tolerance"] and ids_ok
    print(f"value head: V(last) {v[-1].item():.5f}, max |Δ values| {d:.2e} -> {'ok' if d <= check['tolerance'] else 'MISMATCH'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
