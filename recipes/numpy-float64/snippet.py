"""NumPy defaults to float64: torch.from_numpy gives double tensors that float32 layers reject."""

import numpy as np
import torch
from torch import nn


def load_features():
    # Features and targets as NumPy (and pandas, scikit-learn, ...) produce them: float64.
    rng = np.random.default_rng(0)
    return rng.random((4, 3)), rng.random((4, 1))


def problem(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)  # parameters are float32
    conv = nn.Conv2d(1, 1, 3).to(device)
    features, targets = load_features()

    x = torch.from_numpy(features).to(device)  # keeps NumPy's float64
    errors = {}
    for name, call in [
        ("linear_error", lambda: model(x)),
        ("matmul_error", lambda: x @ model.weight.T),
        ("conv_error", lambda: conv(torch.from_numpy(np.zeros((1, 1, 5, 5))).to(device))),
    ]:
        try:
            call()
            errors[name] = "no error"
        except RuntimeError as err:
            errors[name] = f"{type(err).__name__}: {err}"[:2000]

    # A float64 target does not raise: it silently turns the loss (and its backward) into float64.
    pred = model(x.float())
    loss = nn.functional.mse_loss(pred, torch.from_numpy(targets).to(device))
    return {
        "input_dtype": str(x.dtype),
        **errors,
        "loss_dtype": str(loss.dtype),
    }


def fix(device: str) -> dict:
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)
    features, targets = load_features()

    # Convert once, where the data enters torch.
    x = torch.as_tensor(features, dtype=torch.float32, device=device)
    y = torch.from_numpy(targets.astype(np.float32)).to(device)  # or: .float() after from_numpy
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return {
        "output_dtype": str(model(x).dtype),
        "loss_dtype": str(loss.dtype),
        "grad_dtype": str(model.weight.grad.dtype),
    }


if __name__ == "__main__":
    import sys

    device = sys.argv[1] if len(sys.argv) > 1 else "cpu"
    print("problem:", problem(device))
    print("fix:", fix(device))
