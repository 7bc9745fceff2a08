"""`.to()` after `requires_grad=True` hands you a non-leaf copy: its .grad stays None."""

import torch
from torch import nn


def problem(device: str) -> dict:
    torch.manual_seed(0)
    # Create with requires_grad, then convert: `w` is the output of a copy, not a leaf.
    w = torch.randn(3, requires_grad=True).to(device=device, dtype=torch.float64)
    (2 * w).sum().backward()
    w_grad = w.grad  # None, with a UserWarning: the gradient went to the hidden original

    try:
        torch.optim.SGD([w], lr=0.1)
        optimizer_error = "no error"
    except ValueError as err:
        optimizer_error = f"{type(err).__name__}: {err}"[:2000]

    # The device-only form: on CPU `.to("cpu")` returns the tensor itself, still a leaf;
    # on CUDA or MPS it is a copy, and the same line silently stops training `v`.
    v = torch.randn(3, requires_grad=True).to(device)

    # An intermediate result never keeps its gradient either.
    x = torch.ones(3, device=device, requires_grad=True)
    y = x * 2
    y.sum().backward()
    return {
        "w_is_leaf": w.is_leaf,
        "w_grad_is_none": w_grad is None,
        "optimizer_error": optimizer_error,
        "moved_to_device_is_leaf": v.is_leaf,
        "intermediate_grad_is_none": y.grad is None,
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    # Create the tensor where and as it will live, then ask for gradients.
    w = torch.randn(3, device=device, dtype=torch.float64, requires_grad=True)
    (2 * w).sum().backward()
    torch.optim.SGD([w], lr=0.1)  # accepted: `w` is a leaf

    # Or convert first and switch gradients on afterwards.
    v = torch.randn(3).to(device=device, dtype=torch.float64).requires_grad_()

    # nn.Module.to() moves parameters in place: they stay leaves.
    layer = nn.Linear(3, 1).to(device=device, dtype=torch.float64)

    # To see an intermediate gradient, ask for it before backward().
    x = torch.ones(3, device=device, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    return {
        "w_is_leaf": w.is_leaf,
        "w_grad": w.grad.tolist(),
        "requires_grad_after_to_is_leaf": v.is_leaf,
        "module_weight_is_leaf": layer.weight.is_leaf,
        "intermediate_grad": y.grad.tolist(),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
