"""Reentrant activation checkpointing on raw inputs silently trains nothing inside the blocks."""

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(4, 4), nn.Tanh()) for _ in range(2))
        self.head = nn.Linear(4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # no checkpointing: the reference
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def forward_as_in_tutorials(model: Net, x: torch.Tensor) -> torch.Tensor:
    for block in model.blocks:
        x = checkpoint(block, x)  # no use_reentrant: still means use_reentrant=True
    return model.head(x)


def forward_fixed(model: Net, x: torch.Tensor) -> torch.Tensor:
    for block in model.blocks:
        x = checkpoint(block, x, use_reentrant=False)
    return model.head(x)


def block_grads(model: Net, forward, device: str) -> list:
    torch.manual_seed(1)
    x = torch.randn(8, 4, device=device)  # a raw batch: it does not require grad
    y = torch.randn(8, 1, device=device)
    nn.functional.mse_loss(forward(model, x), y).backward()  # the head has a gradient
    return [block[0].weight.grad for block in model.blocks]


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = Net().to(device)
    try:
        grads = block_grads(model, forward_as_in_tutorials, device)
        omitted_raises = False
    except Exception:  # the exception the warning has promised "starting in PyTorch 2.9"
        grads = []
        omitted_raises = True
    return {
        "omitted_use_reentrant_raises": omitted_raises,
        "block_grads_are_none": [g is None for g in grads],
        "head_grad_is_none": model.head.weight.grad is None,
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = Net().to(device)
    grads = block_grads(model, forward_fixed, device)

    torch.manual_seed(0)
    reference = block_grads(Net().to(device), Net.forward, device)
    return {
        "block_grads_are_none": [g is None for g in grads],
        "head_grad_is_none": model.head.weight.grad is None,
        "matches_no_checkpoint": all(torch.allclose(g, r) for g, r in zip(grads, reference)),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
