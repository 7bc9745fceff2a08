"""Wrapped models save prefixed keys (`module.`, `_orig_mod.`); `strict=False` loads nothing."""

import io

import torch
from torch import nn
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


class Net(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.backbone = nn.Linear(4, 8)
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        return self.fc(torch.relu(self.backbone(x)))


def save_and_load(state_dict: dict) -> dict:
    """A round trip through a checkpoint file (an in-memory one here)."""
    buf = io.BytesIO()
    torch.save(state_dict, buf)
    buf.seek(0)
    return torch.load(buf)


def error_of(model: nn.Module, state_dict: dict, strict: bool = True) -> str:
    try:
        model.load_state_dict(state_dict, strict=strict)
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.DataParallel(Net().to(device))  # the training script wraps the model...
    ckpt = save_and_load(model.state_dict())  # ...and saves the wrapper's state_dict

    fresh = Net().to(device)  # the evaluation script builds the bare model
    load_error = error_of(fresh, ckpt)
    # The "fix" found on forums: strict=False. It raises nothing and loads nothing.
    result = fresh.load_state_dict(ckpt, strict=False)
    weights_loaded = torch.equal(fresh.backbone.weight, model.module.backbone.weight)

    # torch.compile wraps the model too; reading state_dict() does not compile anything.
    # (backend="eager": the same wrapper as the default, without importing the compiler.)
    compiled_keys = list(torch.compile(Net().to(device), backend="eager").state_dict())

    # Fine-tuning on 5 classes from a 10-class checkpoint: the head cannot be copied,
    # and strict=False does not help, because it only forgives missing or extra keys.
    clean = save_and_load(model.module.state_dict())
    finetune = Net(num_classes=5).to(device)
    return {
        "ckpt_keys": list(ckpt)[:2],
        "load_error": load_error,
        "strict_false_missing_keys": len(result.missing_keys),
        "strict_false_weights_loaded": weights_loaded,
        "compiled_keys": compiled_keys[:2],
        "finetune_error": error_of(finetune, clean),
        "finetune_strict_false_error": error_of(finetune, clean, strict=False),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.DataParallel(Net().to(device))
    ckpt = save_and_load(model.module.state_dict())  # save the inner model: no prefix
    fresh = Net().to(device)
    result = fresh.load_state_dict(ckpt)  # strict: any mismatch would raise

    # A checkpoint that already has the prefix: strip it in place, then load strictly.
    old_ckpt = save_and_load(model.state_dict())
    consume_prefix_in_state_dict_if_present(old_ckpt, "module.")
    old_fresh = Net().to(device)
    old_fresh.load_state_dict(old_ckpt)

    # torch.compile: save the original module, which the wrapper keeps as `_orig_mod`.
    compiled = torch.compile(Net().to(device), backend="eager")
    compiled_keys = list(compiled._orig_mod.state_dict())

    # Fine-tuning: drop the old head, load the rest, and check what was left out.
    backbone_only = {k: v for k, v in ckpt.items() if not k.startswith("fc.")}
    finetune = Net(num_classes=5).to(device)
    ft_result = finetune.load_state_dict(backbone_only, strict=False)

    def strict_load(state) -> str:
        try:
            Net().to(device).load_state_dict(state)
            return "no error"
        except RuntimeError as err:
            return f"{type(err).__name__}: {err}"[:2000]

    return {
        "load_error": strict_load(ckpt),  # the problem's strict load, on the inner model's keys
        "compiled_load_error": strict_load(save_and_load(compiled._orig_mod.state_dict())),
        "ckpt_keys": list(ckpt)[:2],
        "missing_keys": result.missing_keys,
        "weights_loaded": torch.equal(fresh.backbone.weight, model.module.backbone.weight),
        "stripped_weights_loaded": torch.equal(
            old_fresh.backbone.weight, model.module.backbone.weight
        ),
        "compiled_keys": compiled_keys[:2],
        "finetune_missing_keys": ft_result.missing_keys,
        "finetune_unexpected_keys": ft_result.unexpected_keys,
        "finetune_backbone_loaded": torch.equal(
            finetune.backbone.weight, model.module.backbone.weight
        ),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
