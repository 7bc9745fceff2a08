"""Tensors created under torch.inference_mode() can never be saved for backward afterwards."""

import torch
import torch.nn.functional as F
from torch import nn


def setup(device: str):
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Linear(8, 16), nn.ReLU()).to(device).eval()
    head = nn.Linear(16, 1).to(device)
    x = torch.randn(32, 8, device=device)
    y = torch.randn(32, 1, device=device)
    return backbone, head, x, y


def attempt(step) -> str:
    try:
        step()
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]
    return "no error"


def add_to_weight(feats) -> str:
    """An op that does not save `feats` for backward: (feats + w)'s gradient needs only w's."""
    w = torch.ones(feats.shape[1], device=feats.device, requires_grad=True)
    return attempt(lambda: (feats + w).sum().backward())


def problem(device: str) -> dict:
    backbone, head, x, y = setup(device)
    # Precompute the frozen backbone's features once, "as fast as possible".
    with torch.inference_mode():
        feats = backbone(x)

    # Later: train a head on them. Linear saves its input to compute the weight's gradient.
    train_head = attempt(lambda: F.mse_loss(head(feats), y).backward())
    # Normalise the cached features in place.
    normalise = attempt(lambda: feats.div_(feats.norm(dim=1, keepdim=True)))
    # Ask for input gradients (saliency, adversarial examples).
    saliency = attempt(lambda: feats.requires_grad_())
    return {
        "feats_is_inference": feats.is_inference(),
        "add_error": add_to_weight(feats),
        "train_head_error": train_head,
        "inplace_error": normalise,
        "requires_grad_error": saliency,
        "head_weight_grad_is_none": head.weight.grad is None,
    }


def fix(device: str) -> dict:
    backbone, head, x, y = setup(device)
    # no_grad records no graph either, but its outputs are ordinary tensors.
    with torch.no_grad():
        feats = backbone(x)

    train_head = attempt(lambda: F.mse_loss(head(feats), y).backward())
    normalise = attempt(lambda: feats.div_(feats.norm(dim=1, keepdim=True)))
    saliency = attempt(lambda: feats.requires_grad_())

    # Already holding inference tensors? A clone made outside inference_mode is a normal one.
    with torch.inference_mode():
        cached = backbone(x)
    usable = cached.clone()
    head.weight.grad = None
    F.mse_loss(head(usable), y).backward()
    return {
        "feats_is_inference": feats.is_inference(),
        "add_error": add_to_weight(feats),
        "train_head_error": train_head,
        "inplace_error": normalise,
        "requires_grad_error": saliency,
        "clone_is_inference": usable.is_inference(),
        "clone_trains_head": head.weight.grad is not None,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
