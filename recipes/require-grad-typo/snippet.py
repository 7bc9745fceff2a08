"""`p.require_grad = False` (no "s") freezes nothing; `requires_grad_(False)` does."""

import torch
from torch import nn


def make_model(device: str) -> nn.Sequential:
    torch.manual_seed(0)
    # A "pretrained" backbone and a new head: fine-tune the head only.
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to(device)


def train_one_step(model: nn.Sequential, device: str) -> None:
    # The usual optimizer over all parameters: it skips those whose .grad is None.
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(16, 4, device=device)
    y = torch.randint(0, 2, (16,), device=device)
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()


def problem(device: str) -> dict:
    model = make_model(device)
    backbone, head = model[0], model[2]
    for p in backbone.parameters():
        p.require_grad = False  # BUG: a new Python attribute, autograd never reads it
    model.requires_grad = False  # BUG too: sets an attribute on the Module, nothing else

    before = backbone.weight.detach().clone()
    head_before = head.weight.detach().clone()
    train_one_step(model, device)

    try:
        torch.zeros(3, device=device, require_grad=True)  # as a keyword the typo is loud
        keyword_typo = "no error"
    except TypeError as err:
        keyword_typo = f"{type(err).__name__}: {err}"[:2000]

    return {
        "backbone_requires_grad": [p.requires_grad for p in backbone.parameters()],
        "backbone_changed": not torch.equal(before, backbone.weight.detach()),
        "head_changed": not torch.equal(head_before, head.weight.detach()),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "keyword_typo": keyword_typo,
    }


def fix(device: str) -> dict:
    model = make_model(device)
    backbone, head = model[0], model[2]
    backbone.requires_grad_(False)  # sets requires_grad on every parameter in it

    before = backbone.weight.detach().clone()
    head_before = head.weight.detach().clone()
    train_one_step(model, device)

    # The method form cannot be mistyped silently: a typo is an AttributeError.
    try:
        backbone.weight.require_grad_(False)
        method_typo = "no error"
    except AttributeError as err:
        method_typo = f"{type(err).__name__}: {err}"[:2000]

    return {
        "backbone_requires_grad": [p.requires_grad for p in backbone.parameters()],
        "backbone_changed": not torch.equal(before, backbone.weight.detach()),
        "backbone_grad_is_none": backbone.weight.grad is None,
        "head_changed": not torch.equal(head_before, head.weight.detach()),
        "trainable_params": sum(p.numel() for p in model.parameters() if p.requires_grad),
        "method_typo": method_typo,
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
