"""Shared helpers for the Turnwise recipes: load an export folder (base + optional PEFT adapter),
choose CPU or GPU training settings, and read the lab's JSONL exports.

torch and transformers are imported where they are used, so a script can parse its arguments and
check its data (and fail with a reason) before loading them. Written against the ranges in
requirements.txt (transformers 4.56 to 5.x, peft 0.17 to 0.21, trl 1.9 to 1.13)."""

import os

from episodes import read_jsonl  # noqa: F401  (the recipes import it from here)

LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def load_export(model_dir, adapter=None, trainable=False):
    """The exported base in float32 (the lab trains in fp32), with the PEFT adapter at `adapter` if given.

    The adapter keeps PEFT's name "default": TRL's DPOTrainer copies "default" into a frozen "ref"
    adapter for the reference policy, and a name such as "train" is refused by torch (it is already a
    method of nn.Module: KeyError "attribute 'train' already exists")."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    if adapter:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, adapter, is_trainable=trainable)
        record_base(model, model_dir)
    return tok, model


def record_base(model, model_dir):
    """Points every adapter's base_model_name_or_path at the folder its base was loaded from (absolute).

    An adapter records where its base is; exports before issue 48 wrote the path as given to
    export-model ("export/policy", relative to the repository root), which from recipes/ (or after the
    folder moved) names no folder, so PEFT looked it up on the Hub and warned when saving. The adapters
    the recipes save inherit the recorded path, so they now name a base that exists. Returns the path."""
    base = os.path.abspath(model_dir)
    for config in getattr(model, "peft_config", {}).values():
        config.base_model_name_or_path = base
    return base


def default_adapter(model_dir):
    path = os.path.join(model_dir, "adapter")
    return path if os.path.exists(os.path.join(path, "adapter_config.json")) else None


def add_device_args(ap):
    ap.add_argument("--cpu", action="store_true", help="train on the CPU (default: the GPU when torch sees one)")
    ap.add_argument("--max-steps", type=int, default=-1, help="stop after this many optimizer steps (smoke runs)")


def device_settings(force_cpu=False):
    """TrainingArguments fields for the machine: TRL's configs default to bf16=True, which stops a
    CPU-only run with "Your setup doesn't support bf16/gpu"; on CPU use_cpu and fp32, on a GPU bf16
    mixed precision where it has it (Ampere and newer), else fp32."""
    import torch

    if force_cpu or not torch.cuda.is_available():
        return {"use_cpu": True, "bf16": False, "fp16": False}
    return {"bf16": torch.cuda.is_bf16_supported(), "fp16": False}
