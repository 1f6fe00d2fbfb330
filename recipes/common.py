"""Shared helpers for the Turnwise recipes: load an export folder (base + optional PEFT adapter) and
read the lab's JSONL exports keeping only the fields the trainers use (the exports carry extra
per-record fields of mixed types that `datasets` cannot always fit into one schema)."""

import json
import os

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_export(model_dir, adapter=None, trainable=False, adapter_name="default"):
    """The exported base in float32 (the lab trains in fp32), with the PEFT adapter at `adapter` if given."""
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, torch_dtype=torch.float32)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter, is_trainable=trainable, adapter_name=adapter_name)
    return tok, model


def default_adapter(model_dir):
    path = os.path.join(model_dir, "adapter")
    return path if os.path.exists(os.path.join(path, "adapter_config.json")) else None


LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
