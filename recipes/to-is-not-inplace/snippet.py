"""`tensor.to()` returns a new tensor and leaves the old one alone; `module.to()` is in place."""

import torch
from torch import nn


class Scaled(nn.Module):
    """A learnable per-feature gain, created the tempting way."""

    def __init__(self, device: str) -> None:
        super().__init__()
        # BUG: `.to` on a Parameter returns a plain (non-leaf) tensor, not a Parameter,
        # so `gain` is stored as an ordinary attribute and never registered.
        self.gain = nn.Parameter(torch.ones(4)).to(device, torch.bfloat16)


class ScaledFixed(nn.Module):
    def __init__(self, device: str) -> None:
        super().__init__()
        # Create the tensor where and how you want it, then wrap it (or call model.to later).
        self.gain = nn.Parameter(torch.ones(4, device=device, dtype=torch.bfloat16))


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(4, 2).to(device)
    x = torch.randn(8, 4, device=device)

    model.to(torch.bfloat16)  # a Module converts its parameters in place: this works
    x.to(torch.bfloat16)  # BUG: returns a new tensor, and it is thrown away
    try:
        model(x)
        forward_error = "no error"
    except RuntimeError as err:
        forward_error = f"{type(err).__name__}: {err}"[:2000]

    batch = torch.randn(8, 4)  # what a DataLoader yields: a CPU tensor
    batch.to(device)  # BUG: same mistake with a device; `batch` stays on the CPU

    return {
        "weight_dtype": str(model.weight.dtype),
        "x_dtype_after_to": str(x.dtype),
        "forward_error": forward_error,
        "batch_device_after_to": batch.device.type,
        "gain_is_parameter": isinstance(Scaled(device).gain, nn.Parameter),
        "registered_params": len(list(Scaled(device).parameters())),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(4, 2).to(device)
    x = torch.randn(8, 4, device=device)

    same_module = model.to(torch.bfloat16) is model  # Module.to returns self
    x = x.to(torch.bfloat16)  # Tensor.to returns the converted copy: keep it
    out = model(x)

    batch = torch.randn(8, 4)
    batch = batch.to(device)

    try:
        model(x)  # the problem's forward, with the reassigned x
        forward_error = "no error"
    except RuntimeError as err:
        forward_error = f"{type(err).__name__}: {err}"[:2000]

    return {
        "weight_dtype": str(model.weight.dtype),
        "forward_error": forward_error,
        "module_to_returns_self": same_module,
        "x_dtype_after_to": str(x.dtype),
        "output_dtype": str(out.dtype),
        "batch_on_device": batch.device == model.weight.device,
        "registered_params": len(list(ScaledFixed(device).parameters())),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
