"""MPS has no float64: NumPy's float64 arrays must become float32 before they reach the device."""

import sys

import numpy as np
import torch
from torch import nn


def load_batch():
    # Features and targets as NumPy (and pandas, scikit-learn, np.loadtxt) produce them.
    rng = np.random.default_rng(0)
    return rng.random((8, 3)), rng.random((8, 1))


def train_step(x: torch.Tensor, y: torch.Tensor, device: str) -> float:
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device=device, dtype=x.dtype)
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss.item()


def try_call(call) -> str:
    try:
        call()
        return "no error"
    except (TypeError, RuntimeError) as err:
        return f"{type(err).__name__}: {err}"[:2000]


def problem(device: str) -> dict:
    features, targets = load_batch()
    x = torch.from_numpy(features)  # keeps NumPy's float64
    sent = str(x.dtype)

    # Move first, convert after: the copy onto the device is still float64.
    to_device = try_call(lambda: x.to(device).float())

    # Code (or a library) that switches the default dtype to float64 for precision: every
    # factory call, even torch.tensor of Python floats, now makes float64 tensors.
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        factory_dtype = str(torch.tensor([0.5]).dtype)
        factory_on_device = try_call(lambda: torch.zeros(3, device=device))
    finally:
        torch.set_default_dtype(previous)
    return {
        "dtype_sent_to_device": sent,
        "to_device": to_device,
        "factory_dtype": factory_dtype,
        "factory_on_device": factory_on_device,
    }


def fix(device: str) -> dict:
    features, targets = load_batch()
    # Convert where the data enters torch, in the same call that moves it.
    x = torch.from_numpy(features).to(device, dtype=torch.float32)
    y = torch.from_numpy(targets).to(device, dtype=torch.float32)
    sent = str(x.dtype)
    to_device = try_call(lambda: torch.from_numpy(features).float().to(device))  # also fine
    loss32 = train_step(x, y, device)

    # What float32 costs: the same step in float64 on the CPU, as a reference.
    loss64 = train_step(torch.from_numpy(features), torch.from_numpy(targets), "cpu")
    return {
        "dtype_sent_to_device": sent,
        "to_device": to_device,
        "factory_dtype": str(torch.tensor([0.5]).dtype),  # the default dtype left alone
        "factory_on_device": try_call(lambda: torch.zeros(3, device=device)),
        "loss_rel_error_vs_float64": abs(loss32 - loss64) / loss64,
    }


if __name__ == "__main__":
    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
