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
    return {
        # 1) The batch was never moved.
        "input_left_on_cpu": attempt(lambda: model(x)),
        # 2) The batch was moved, but forward makes a tensor without `device=`.
        "tensor_made_in_forward": attempt(lambda: model(x.to(device))),
        # 3) The targets were never moved.
        "target_left_on_cpu": attempt(lambda: F.cross_entropy(logits, labels)),
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
    return {
        "loss_is_finite": bool(torch.isfinite(loss)),
        "grad_is_finite": bool(torch.isfinite(model.proj.weight.grad).all()),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else ("cuda" if torch.cuda.is_available() else "cpu")
    print("problem:", problem(device))
    print("fix:", fix(device))
