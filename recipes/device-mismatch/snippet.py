"""Tensors on two devices in one operation: inputs, targets and tensors made inside forward."""

import torch
import torch.nn.functional as F
from torch import nn


class Scorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 3)

    def forward(self, x):
        mask = torch.ones(x.shape[0], 3)  # BUG: made on the CPU, whatever device x is on
        mask[0] = 0
        return self.proj(x) * mask


class LazyHead(nn.Module):
    def forward(self, x):
        head = nn.Linear(x.shape[1], 3)  # BUG: a module built in forward lives on the CPU
        return head(x)


class FixedScorer(Scorer):
    def forward(self, x):
        mask = torch.ones(x.shape[0], 3, device=x.device)  # follows the input
        mask[0] = 0
        return self.proj(x) * mask


def attempt(fn) -> str:
    try:
        fn()
        return "no error"
    except RuntimeError as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = Scorer().to(device)  # moves the parameters, not the data
    x = torch.randn(2, 4)
    labels = torch.tensor([0, 2])
    logits = model.proj(x.to(device))
    conv = nn.Conv2d(1, 2, 3)  # .to(device) forgotten
    images = torch.randn(1, 1, 5, 5)
    return {
        # 1) The batch was never moved.
        "input_left_on_cpu": attempt(lambda: model(x)),
        # 2) The batch was moved, but forward makes a tensor without `device=`.
        "tensor_made_in_forward": attempt(lambda: model(x.to(device))),
        # 3) The targets were never moved.
        "target_left_on_cpu": attempt(lambda: F.cross_entropy(logits, labels)),
        # 4) A conv model that was never moved, fed a moved batch.
        "conv_model_left_on_cpu": attempt(lambda: conv(images.to(device))),
        # 5) A module created inside forward: never registered, never moved.
        "module_made_in_forward": attempt(lambda: LazyHead()(x.to(device))),
        # A 0-dim CPU tensor is the exception: it is treated like a Python number.
        "zero_dim_cpu_tensor": attempt(lambda: logits * torch.tensor(0.5)),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = FixedScorer().to(device)
    x = torch.randn(2, 4).to(device)  # every batch goes where the model is
    labels = torch.tensor([0, 2]).to(device)
    loss = F.cross_entropy(model(x), labels)
    loss.backward()
    conv = nn.Conv2d(1, 2, 3).to(device)
    head = nn.Linear(4, 3).to(device)  # built in __init__, moved with the model
    return {
        # The problem's calls, with everything on one device.
        "input_left_on_cpu": attempt(lambda: model(x)),
        "tensor_made_in_forward": attempt(lambda: model(x)),
        "target_left_on_cpu": attempt(lambda: F.cross_entropy(model(x), labels)),
        "conv_model_left_on_cpu": attempt(lambda: conv(torch.randn(1, 1, 5, 5).to(device))),
        "module_made_in_forward": attempt(lambda: head(x)),
        "loss_is_finite": bool(torch.isfinite(loss)),
        "grad_is_finite": bool(torch.isfinite(model.proj.weight.grad).all()),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
